//! The worker with a real OpenAI-compatible server in the loop: llama.cpp's `llama-server` with
//! SmolLM2-135M-Instruct (`make llm-up`; the Makefile exports where it runs and where its
//! binary and model are). A 135M model writes poor answers: what these tests prove is that the
//! judge never lets a wrong-version or non-retrieved citation through, that every turn ends
//! within the LLM budget, and that a server that goes away mid-run costs fallbacks, not a
//! stuck partition.

mod common;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::workers::{apply_topics, eval_report, policyctl, Worker};

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} unset: run the tests with `make test`"))
}

fn prefix(name: &str) -> String {
    format!("llm-{name}-{}", uuid::Uuid::new_v4().simple())
}

/// The worker's LLM settings: per-request deadline, turn budget, retries, breaker.
fn llm_env(base_url: &str) -> Vec<(&'static str, String)> {
    vec![
        ("POLICY_LLM_BASE_URL", base_url.to_string()),
        ("POLICY_LLM_MODEL", "smollm2-135m-instruct".into()),
        ("POLICY_LLM_TIMEOUT_SECS", "30".into()),
        ("POLICY_LLM_BUDGET_SECS", "40".into()),
        ("POLICY_LLM_MAX_RETRIES", "2".into()),
        ("POLICY_LLM_BREAKER_FAILURES", "2".into()),
        ("POLICY_LLM_BREAKER_COOLDOWN_SECS", "600".into()),
    ]
}

fn start_worker(prefix: &str, base_url: &str) -> Worker {
    let env = llm_env(base_url);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    Worker::start_with_env("all", prefix, &env)
}

/// `eval --via-kafka` on an evenly spaced sample of golden cases, thresholds off (the model's
/// accuracy is not what is tested); the JSON report.
fn eval_sample(prefix: &str, sample: usize) -> serde_json::Value {
    let out = policyctl()
        .args([
            "eval",
            "--via-kafka",
            "--json",
            "--sample",
            &sample.to_string(),
            "--min-outcome-accuracy",
            "0",
            "--min-expected-clause-citation",
            "0",
            "--topic-prefix",
            prefix,
            "--timeout-secs",
            "900",
        ])
        .output()
        .unwrap();
    let report = eval_report(&out);
    let delivery = &report["delivery"];
    assert_eq!(delivery["turns"], delivery["outcomes"], "{delivery}");
    assert_eq!(delivery["duplicate_outcomes"], 0);
    report
}

/// What must hold whatever the model writes.
fn assert_nothing_unsafe_served(report: &serde_json::Value) {
    let generation = &report["generation"];
    assert_eq!(generation["served_citing_wrong_version"], 0, "{generation}");
    assert_eq!(
        generation["served_citing_unretrieved_clause"], 0,
        "{generation}"
    );
    assert_eq!(report["overall"]["wrong_version_answers"], 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn golden_turns_through_a_real_llm_serve_nothing_the_judge_should_stop() {
    let prefix = prefix("golden");
    apply_topics(&prefix);
    let worker = start_worker(&prefix, &env("POLICY_TEST_LLM_URL"));
    let report = eval_sample(&prefix, 8);
    assert_nothing_unsafe_served(&report);
    let generation = &report["generation"];
    assert!(
        generation["llm_requests"].as_u64().unwrap() >= 1,
        "the LLM was called: {generation}"
    );
    assert_eq!(
        generation["by_generator"]["openai-compatible"], generation["drafted_turns"],
        "{generation}"
    );

    // `ask` returns within its timeout.
    let started = Instant::now();
    let out = policyctl()
        .args([
            "ask",
            "--json",
            "--region",
            "eu",
            "--purchased-at",
            "2026-03-01T10:00:00Z",
            "--topic-prefix",
            &prefix,
            "--timeout-secs",
            "120",
        ])
        .arg("How many days do I have to return an item?")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ask after {:?}: {}",
        started.elapsed(),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(worker.stop().success());
}

/// `GET /health` answers 200 (the model is loaded).
fn healthy(port: u16) -> bool {
    use std::io::{Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let mut reply = String::new();
    stream
        .write_all(b"GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        .and_then(|_| stream.read_to_string(&mut reply))
        .is_ok()
        && reply.starts_with("HTTP/1.1 200")
}

/// A llama-server of this test's own, on a free port, that the test can stop.
struct OwnServer {
    child: Child,
    url: String,
}

impl OwnServer {
    fn start() -> OwnServer {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(env("POLICY_TEST_LLAMA_SERVER"))
            .args(["--model", &env("POLICY_TEST_LLM_MODEL_FILE")])
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--ctx-size", "4096", "--parallel", "2", "--threads", "2"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("llama-server");
        let deadline = Instant::now() + Duration::from_secs(120);
        while !healthy(port) {
            assert!(Instant::now() < deadline, "llama-server not ready");
            std::thread::sleep(Duration::from_millis(200));
        }
        OwnServer {
            child,
            url: format!("http://127.0.0.1:{port}/v1"),
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for OwnServer {
    fn drop(&mut self) {
        self.kill();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_stopped_mid_run_costs_fallbacks_within_the_budget_not_a_stuck_partition() {
    let mut server = OwnServer::start();
    let prefix = prefix("stopped");
    apply_topics(&prefix);
    let worker = start_worker(&prefix, &server.url);
    // The server goes away while the first turns are being generated.
    let first = {
        let prefix = prefix.clone();
        std::thread::spawn(move || eval_sample(&prefix, 6))
    };
    std::thread::sleep(Duration::from_secs(8));
    server.kill();
    let first = first.join().unwrap();
    assert_nothing_unsafe_served(&first);

    // With the server gone, every drafted turn falls back (the breaker is open by now) and
    // the worker keeps serving.
    let second = eval_sample(&prefix, 6);
    assert_nothing_unsafe_served(&second);
    let generation = &second["generation"];
    let drafted = generation["drafted_turns"].as_u64().unwrap();
    let fallbacks: u64 = generation["fallbacks"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert!(drafted > 0, "{generation}");
    assert_eq!(
        fallbacks, drafted,
        "every drafted turn fell back: {generation}"
    );
    // Each of a turn's two drafts is bounded by the 40 s budget.
    for report in [&first, &second] {
        let p95 = report["generation"]["draft_latency_p95_ms"]
            .as_f64()
            .unwrap();
        assert!(
            p95 <= 2.0 * 40_000.0 + 5_000.0,
            "draft latency p95 {p95} ms"
        );
    }
    assert!(worker.stop().success(), "graceful shutdown");
}
