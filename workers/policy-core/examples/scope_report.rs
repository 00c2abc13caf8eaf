//! Prints what the scope check finds in the questions of a case file (temporary diagnostic).
use policy_core::scope::RegionScope;
fn main() {
    let mut args = std::env::args().skip(1);
    let corpus = policy_core::load_dir(std::path::Path::new(&args.next().unwrap())).unwrap();
    let regions: Vec<String> = corpus.manifest().regions().map(|r| r.to_string()).collect();
    for file in args {
        for line in std::fs::read_to_string(&file).unwrap().lines() {
            let case: serde_json::Value = serde_json::from_str(line).unwrap();
            let region = case["region"].as_str().unwrap_or("us");
            let texts: Vec<&str> = corpus
                .clauses()
                .iter()
                .filter(|c| c.region == region)
                .flat_map(|c| [c.text.as_str(), c.title.as_str()])
                .collect();
            let scope = RegionScope::new(texts, regions.iter().map(String::as_str));
            let found = scope.foreign(case["question"].as_str().unwrap());
            let tags = case["tags"]
                .as_array()
                .map(|t| {
                    t.iter()
                        .map(|x| x.as_str().unwrap().to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .unwrap_or_default();
            println!(
                "{}\t{}\t{}\t{:?}\t{}",
                if found.is_empty() { "-" } else { "OUT" },
                case["expected_outcome"].as_str().unwrap(),
                tags,
                found,
                case["question"].as_str().unwrap()
            );
        }
    }
}
