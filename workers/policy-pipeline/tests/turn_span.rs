//! Each stage worker runs the turn in a span carrying its id, region and version (its own test
//! binary: a subscriber installed for one test is not raced by other tests' threads).

use std::sync::{Arc, Mutex};

use policy_pipeline::fakes::{chat_turn, fake_chain, input, tiny_corpus};
use policy_pipeline::wire::ToWire;
use policy_pipeline::{Entry, Exit, StageName, Turn};

/// A writer into a shared buffer, for reading what the fmt subscriber printed.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn each_stage_worker_runs_the_turn_in_a_span_with_its_region_and_version() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::set_global_default(subscriber).unwrap();
    let chain = fake_chain(tiny_corpus(), None);
    let turn = chat_turn(
        "How many days is the return window?",
        Some("eu"),
        Some("2026-06-01T10:00:00Z"),
    );
    // Stage by stage, across the wire format, as the per-stage workers run it.
    let mut entry = Entry::Received(Turn::new(turn, input(0), 0));
    for last in [
        StageName::Enrich,
        StageName::Retrieve,
        StageName::Generate,
        StageName::Judge,
    ] {
        entry = match chain.run(entry, last).await.unwrap() {
            Exit::Outcome(_) => break,
            Exit::Enriched(t) => Entry::Enriched(t.to_wire().try_into().unwrap()),
            Exit::Retrieved(t) => Entry::Retrieved(t.to_wire().try_into().unwrap()),
            Exit::Drafted(t) => Entry::Drafted(t.to_wire().try_into().unwrap()),
        };
    }
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let in_span = log
        .lines()
        .filter(|l| l.contains("turn{turn_id=turn-1 region=eu version=eu-v2}"))
        .count();
    assert_eq!(
        in_span, 4,
        "one line per stage worker, each in the turn's span:\n{log}"
    );
}
