//! A corpus: the manifest plus every clause of every version. [`load_dir`] is the one place in
//! this crate that touches the file system; everything else works on the loaded value.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::clause::{parse_clauses, Clause, ClauseOrigin};
use crate::manifest::{Manifest, ManifestError, ManifestErrors};
use crate::rules::rule_mismatches;
use crate::script::scripts_in;
use unicode_script::Script;

#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    #[error("cannot read {path}: {reason}")]
    Io { path: PathBuf, reason: String },
    #[error("{0}")]
    Manifest(ManifestErrors),
}

/// One markdown file of one version.
#[derive(Debug, Clone)]
pub struct Document {
    pub version_id: String,
    pub file_name: String,
    pub content: String,
}

#[derive(Debug, Clone)]
pub struct Corpus {
    manifest: Manifest,
    clauses: Vec<Clause>,
    by_id: HashMap<String, usize>,
    /// Versions whose documents could not be used, with the reason. Their clauses are absent;
    /// every other version is still served.
    failed_versions: BTreeMap<String, String>,
    /// Rules that disagree with their clause's text, per version (those versions are failed
    /// too): a publisher refuses the whole corpus for these, since legal must fix the pull request.
    rule_problems: BTreeMap<String, Vec<String>>,
    /// What the expense rules of every version are about ([`crate::decision::expense_words`]).
    expense_words: BTreeSet<String>,
    /// The scripts each version's clauses are written in ([`crate::script`]): what a message
    /// must mostly be written in for that version to be compared with it. Per version, so
    /// publishing a region in another script changes nothing for the others.
    scripts: HashMap<String, HashSet<Script>>,
    /// Digest of the manifest and every document: what a turn served from a directory pins
    /// (two checkouts with one manifest but other clause texts are other corpora).
    content_sha: String,
}

impl Corpus {
    /// Builds a corpus from documents already read. Documents of unknown versions are ignored
    /// by design: the manifest decides what exists.
    pub fn from_documents(
        manifest: Manifest,
        documents: Vec<Document>,
        mut failed_versions: BTreeMap<String, String>,
    ) -> Corpus {
        let content_sha = content_sha(&manifest, &documents);
        let mut clauses = Vec::new();
        let mut by_id = HashMap::new();
        let mut rule_problems_by_version = BTreeMap::new();
        for version in manifest.versions() {
            if failed_versions.contains_key(&version.id) {
                continue;
            }
            let mut version_clauses = Vec::new();
            let mut docs: Vec<&Document> = documents
                .iter()
                .filter(|d| d.version_id == version.id)
                .collect();
            docs.sort_by(|a, b| a.file_name.cmp(&b.file_name));
            for doc in docs {
                version_clauses.extend(parse_clauses(
                    &doc.content,
                    ClauseOrigin {
                        version_id: &version.id,
                        region: &version.region,
                        effective_from: version.effective_from,
                        effective_to: version.effective_to,
                        source_file: &doc.file_name,
                    },
                ));
            }
            let mut seen = BTreeSet::new();
            let duplicate = version_clauses
                .iter()
                .find(|c| !seen.insert(c.clause_id.clone()));
            // A rule that disagrees with its clause would let a decision use a number the
            // customer is never shown: the version is refused, naming the clause.
            let rule_problems: Vec<String> = version_clauses
                .iter()
                .flat_map(|c| {
                    let unreadable = c
                        .rule_errors
                        .iter()
                        .map(|e| format!("{}: {e}", c.clause_id));
                    unreadable.chain(
                        rule_mismatches(c)
                            .iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>(),
                    )
                })
                .collect();
            let problem = match (version_clauses.is_empty(), duplicate) {
                (true, _) => Some("no clauses found in its documents".to_string()),
                (false, Some(dup)) => Some(format!("clause id `{}` appears twice", dup.clause_id)),
                (false, None) if !rule_problems.is_empty() => Some(rule_problems.join("; ")),
                (false, None) => None,
            };
            if !rule_problems.is_empty() {
                rule_problems_by_version.insert(version.id.clone(), rule_problems);
            }
            if let Some(problem) = problem {
                failed_versions.insert(version.id.clone(), problem);
                continue;
            }
            for clause in version_clauses {
                by_id.insert(clause.clause_id.clone(), clauses.len());
                clauses.push(clause);
            }
        }
        let expense_words = crate::decision::expense_words(&clauses);
        let mut scripts: HashMap<String, HashSet<Script>> = HashMap::new();
        for clause in &clauses {
            let version = scripts.entry(clause.version_id.clone()).or_default();
            version.extend(scripts_in(&clause.title).chain(scripts_in(&clause.text)));
        }
        Corpus {
            manifest,
            clauses,
            by_id,
            failed_versions,
            rule_problems: rule_problems_by_version,
            expense_words,
            scripts,
            content_sha,
        }
    }

    /// Digest of the manifest and every document of the corpus (SHA-256, hex).
    pub fn content_sha(&self) -> &str {
        &self.content_sha
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    pub fn clauses(&self) -> &[Clause] {
        &self.clauses
    }

    pub fn clause(&self, clause_id: &str) -> Option<&Clause> {
        self.by_id.get(clause_id).map(|i| &self.clauses[*i])
    }

    pub fn version_clauses<'a>(
        &'a self,
        version_id: &'a str,
    ) -> impl Iterator<Item = &'a Clause> + 'a {
        self.clauses
            .iter()
            .filter(move |c| c.version_id == version_id)
    }

    /// Clauses with sentences taken out as instructions to the assistant, and those sentences.
    pub fn quarantined(&self) -> impl Iterator<Item = (&str, &[String])> {
        self.clauses
            .iter()
            .filter(|c| !c.quarantined.is_empty())
            .map(|c| (c.clause_id.as_str(), c.quarantined.as_slice()))
    }

    /// The words expense requests name: for telling one from a policy question.
    pub fn expense_words(&self) -> &BTreeSet<String> {
        &self.expense_words
    }

    /// The scripts a version's clauses are written in (`None`: no such version is served).
    pub fn scripts(&self, version_id: &str) -> Option<&HashSet<Script>> {
        self.scripts.get(version_id)
    }

    /// Rules that disagree with their clause's text, per version.
    pub fn rule_problems(&self) -> &BTreeMap<String, Vec<String>> {
        &self.rule_problems
    }

    pub fn failed_versions(&self) -> &BTreeMap<String, String> {
        &self.failed_versions
    }

    /// Topics whose policy differs by region: two regions that never share a wording of the
    /// topic, in any version. For those, one identical answer in every region is a defect
    /// (the "entropy collapse" the audit report alerts on).
    pub fn region_dependent_topics(&self) -> BTreeSet<String> {
        let mut wordings: BTreeMap<&str, BTreeMap<&str, BTreeSet<&str>>> = BTreeMap::new();
        for clause in &self.clauses {
            if let Some(topic) = &clause.topic {
                wordings
                    .entry(topic)
                    .or_default()
                    .entry(&clause.region)
                    .or_default()
                    .insert(&clause.body);
            }
        }
        wordings
            .into_iter()
            .filter(|(_, by_region)| {
                let regions: Vec<&BTreeSet<&str>> = by_region.values().collect();
                regions.iter().enumerate().any(|(i, a)| {
                    regions[i + 1..]
                        .iter()
                        .any(|b| a.intersection(b).next().is_none())
                })
            })
            .map(|(topic, _)| topic.to_string())
            .collect()
    }
}

/// SHA-256 over the manifest's own digest and every document in (version, file name) order,
/// each part NUL-terminated so that no two corpora share a digest by shifting bytes.
fn content_sha(manifest: &Manifest, documents: &[Document]) -> String {
    use sha2::{Digest, Sha256};
    let mut ordered: Vec<&Document> = documents.iter().collect();
    ordered.sort_by(|a, b| (&a.version_id, &a.file_name).cmp(&(&b.version_id, &b.file_name)));
    let mut hasher = Sha256::new();
    hasher.update(manifest.content_sha().as_bytes());
    hasher.update([0]);
    for doc in ordered {
        for part in [&doc.version_id, &doc.file_name, &doc.content] {
            hasher.update(part.as_bytes());
            hasher.update([0]);
        }
    }
    hex::encode(hasher.finalize())
}

/// Reads `manifest.json` and every `{region}/v{N}/*.md` under `dir`. Manifest problems (invalid
/// content, directories missing or unlisted) fail the load; an unreadable document fails only
/// its version, which is recorded in [`Corpus::failed_versions`].
pub fn load_dir(dir: &Path) -> Result<Corpus, CorpusError> {
    let manifest = read_manifest(dir)?;
    let directories = version_directories(dir)?;
    let problems: Vec<ManifestError> = manifest.check_directories(&directories);
    if !problems.is_empty() {
        return Err(CorpusError::Manifest(ManifestErrors(problems)));
    }
    let mut documents = Vec::new();
    let mut failed = BTreeMap::new();
    for version in manifest.versions() {
        let version_dir = dir.join(version.directory());
        match read_version(&version_dir, &version.id) {
            Ok(docs) => documents.extend(docs),
            Err(reason) => {
                failed.insert(version.id.clone(), reason);
            }
        }
    }
    Ok(Corpus::from_documents(manifest, documents, failed))
}

/// Reads and validates `dir`'s `manifest.json` alone (no document is read).
pub fn read_manifest(dir: &Path) -> Result<Manifest, CorpusError> {
    let manifest_path = dir.join("manifest.json");
    let json = std::fs::read_to_string(&manifest_path).map_err(|e| io(&manifest_path, e))?;
    Manifest::parse(&json).map_err(CorpusError::Manifest)
}

fn read_version(version_dir: &Path, version_id: &str) -> Result<Vec<Document>, String> {
    let mut docs = Vec::new();
    let entries =
        std::fs::read_dir(version_dir).map_err(|e| format!("{}: {e}", version_dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.extension().and_then(|e| e.to_str()) != Some("md") {
            continue;
        }
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let content = String::from_utf8(bytes).map_err(|e| {
            format!(
                "{}: not UTF-8 (byte {})",
                path.display(),
                e.utf8_error().valid_up_to()
            )
        })?;
        docs.push(Document {
            version_id: version_id.to_string(),
            file_name: path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string(),
            content,
        });
    }
    Ok(docs)
}

/// `{region}/v{N}` directories directly under the corpus root.
fn version_directories(dir: &Path) -> Result<BTreeSet<String>, CorpusError> {
    let mut found = BTreeSet::new();
    for region in std::fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let region = region.map_err(|e| io(dir, e))?;
        if !region.path().is_dir() {
            continue;
        }
        let region_name = region.file_name().to_string_lossy().to_string();
        for version in std::fs::read_dir(region.path()).map_err(|e| io(&region.path(), e))? {
            let version = version.map_err(|e| io(&region.path(), e))?;
            let name = version.file_name().to_string_lossy().to_string();
            if version.path().is_dir() && name.starts_with('v') {
                found.insert(format!("{region_name}/{name}"));
            }
        }
    }
    Ok(found)
}

fn io(path: &Path, e: std::io::Error) -> CorpusError {
    CorpusError::Io {
        path: path.to_path_buf(),
        reason: e.to_string(),
    }
}

#[cfg(test)]
#[path = "corpus_tests.rs"]
mod tests;
