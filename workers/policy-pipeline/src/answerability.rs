//! The answerability gate, run by the retrieve stage before anything is drafted: a question the
//! policy in force does not answer escalates with a precise reason instead of being answered
//! with the nearest clause.
//!
//! - `out_of_scope`: the question names another organisation or a jurisdiction the corpus does
//!   not serve, or asks a rule about a thing (a product, a service) the region's policy never
//!   mentions and has no equivalent for ([`policy_core::scope`]).
//! - `out_of_scope` too: the question is closer to requests no retailer's policy answers
//!   (the weather; a refund for a flight) than to the policy and to requests about a retailer's
//!   goods ([`crate::out_of_domain`]).
//! - `not_covered_in_version`: another version of the same region answers the question with a
//!   clause whose topic the version in force does not have, and answers it clearly better. The
//!   comparison stays inside the customer's region, so publishing another region never changes
//!   what this one answers.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex};

use policy_core::expansion::QueryExpansion;
use policy_core::memo::Memo;
use policy_core::scope::{phrases_around, uncovered_subjects, Foreign, RegionScope};
use policy_core::text::{analyze, content_words, focus_parts};
use policy_core::{Clause, Corpus};

use crate::out_of_domain::{DomainMatch, DomainMatches, OutOfDomainLibrary};
use crate::serving::ServingState;
use policy_search::retriever::SharedEmbedder;

/// Settings of the gate (from [`crate::config::PipelineConfig`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnswerabilityRule {
    /// Out of domain when the general out-of-domain library is this much closer (cosine) to
    /// the question than the closest clause of the version in force ...
    pub out_of_domain_margin: f32,
    /// ... or the foreign-policy library is this much closer than both the retail library and
    /// that clause.
    pub foreign_policy_margin: f32,
    /// A thing asked about is outside the policy when the version's closest word is below
    /// this cosine (and no version of the region mentions it).
    pub uncovered_max_cosine: f32,
    /// A phrase of the question around a word no policy of the corpus uses is about something
    /// else when the foreign-policy library is this much closer to it than the retail library.
    pub foreign_subject_margin: f32,
    /// The other version's answer must be at least this confident ...
    pub min_confidence: f64,
    /// ... and this much more confident than the version in force, or use words of the
    /// question that the version in force never uses.
    pub margin: f64,
}

/// How another version of the region answered the question.
#[derive(Debug, Clone, PartialEq)]
pub struct VersionMatch {
    pub version_id: String,
    pub clause_id: String,
    pub topic: String,
    pub confidence: f64,
    /// Words the question asks about that the version in force never uses and this clause
    /// does ("handling" in "is there a handling fee?").
    pub gap: Vec<String>,
    /// A version of another region: it shows the topic only with words of its own.
    pub other_region: bool,
    /// Some of `gap` is a name the question writes capitalised ("Second Ascent"): the question
    /// asks about a programme or a service by its name.
    pub names_it: bool,
    /// The clause holds every word of what the question asks that the version in force's best
    /// clause holds, and more ("the price dropped ... refund the difference": a price
    /// adjustment clause against a refund timing one).
    pub asks_more: bool,
}

/// A phrase of the question closer to requests no retail policy answers than to requests
/// about a retailer's goods.
#[derive(Debug, Clone, PartialEq)]
pub struct ForeignSubject {
    pub phrase: String,
    pub foreign: DomainMatch,
    /// Mean cosine of the nearest retail requests.
    pub retail: f32,
}

impl std::fmt::Display for ForeignSubject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "\"{}\" is closer to requests no retail policy answers ({:.2}, nearest \"{}\") \
             than to requests about a retailer's goods ({:.2})",
            self.phrase, self.foreign.similarity, self.foreign.nearest, self.retail
        )
    }
}

/// The version in force lacks the topic the question is about.
#[derive(Debug, Clone, PartialEq)]
pub struct NotCovered {
    pub topic: String,
    /// Versions (any region) whose clauses have the topic, oldest first per region.
    pub covered_by: Vec<String>,
    /// The match that showed it.
    pub evidence: VersionMatch,
}

impl NotCovered {
    pub fn reason(&self, version_id: &str) -> String {
        let words = if self.evidence.gap.is_empty() {
            String::new()
        } else {
            format!(
                " (\"{}\" appears nowhere in it)",
                self.evidence.gap.join("\", \"")
            )
        };
        format!(
            "not_covered_in_version: the question is about `{}`, which {version_id} does not \
             cover{words}; {} ({:.2}) does; versions with this topic: {}",
            self.topic,
            self.evidence.clause_id,
            self.evidence.confidence,
            self.covered_by.join(", ")
        )
    }
}

/// The topic of a clause: its `<!-- topic: ... -->` tag, else its title.
pub fn topic_of(clause: &Clause) -> String {
    clause
        .topic
        .clone()
        .unwrap_or_else(|| clause.title.to_lowercase())
}

/// The words of a text as stems, and its adjacent stem pairs ("price adjustment").
#[derive(Debug, Default)]
struct Wording {
    stems: HashSet<String>,
    pairs: HashSet<(String, String)>,
}

impl Wording {
    fn of<'a>(texts: impl IntoIterator<Item = &'a str>) -> Wording {
        let mut wording = Wording::default();
        for text in texts {
            let stems = analyze(text);
            for pair in stems.windows(2) {
                wording.pairs.insert((pair[0].clone(), pair[1].clone()));
            }
            wording.stems.extend(stems);
        }
        wording
    }
}

/// The libraries a question's domain is judged by, and the model that embeds it.
#[derive(Debug)]
pub struct DomainLibraries {
    pub general: Arc<OutOfDomainLibrary>,
    pub foreign_policy: Arc<OutOfDomainLibrary>,
    pub retail: Arc<OutOfDomainLibrary>,
    pub embedder: SharedEmbedder,
}

/// Questions whose library matches are kept before the memo starts over.
const QUESTIONS_REMEMBERED: usize = 4096;

/// Values derived from a served corpus, keyed by (manifest sha, region or version id).
type PerCorpus<T> = Mutex<HashMap<(String, String), Arc<T>>>;

/// Scopes, topics and wordings per served corpus, computed once per (manifest, region or
/// version).
#[derive(Debug)]
pub struct AnswerabilityGate {
    rule: AnswerabilityRule,
    domain: Option<DomainLibraries>,
    scopes: PerCorpus<RegionScope>,
    topics: PerCorpus<BTreeSet<String>>,
    wordings: PerCorpus<Wording>,
    /// Per clause (keyed by its id): the other versions' best clauses recur from turn to turn.
    clause_wordings: PerCorpus<Wording>,
    /// Domain library matches per question (the libraries are fixed at start).
    domain_matches: Memo<String, DomainMatches>,
    /// What each question names outside the corpus, per (manifest, region, question): the
    /// gazetteer is read word by word, and questions recur.
    foreign_names: Memo<(String, String, String), Vec<Foreign>>,
}

impl AnswerabilityGate {
    pub fn new(rule: AnswerabilityRule) -> AnswerabilityGate {
        AnswerabilityGate {
            rule,
            domain: None,
            scopes: Mutex::default(),
            topics: Mutex::default(),
            wordings: Mutex::default(),
            clause_wordings: Mutex::default(),
            domain_matches: Memo::new(QUESTIONS_REMEMBERED),
            foreign_names: Memo::new(QUESTIONS_REMEMBERED),
        }
    }

    /// The same gate also checking questions against the domain libraries (any may be
    /// empty).
    pub fn with_out_of_domain(mut self, libraries: DomainLibraries) -> AnswerabilityGate {
        self.domain = Some(libraries);
        self
    }

    pub fn rule(&self) -> AnswerabilityRule {
        self.rule
    }

    /// The question's matches in the domain libraries.
    pub async fn out_of_domain(&self, question: &str) -> Option<DomainMatches> {
        let domain = self.domain.as_ref()?;
        if let Some(known) = self.domain_matches.get(question) {
            return Some(known);
        }
        // The retriever embedded the same question a moment ago: a cache hit.
        let vector = domain.embedder.embed_query_async(question).await.ok()?;
        let found = DomainMatches {
            general: domain.general.matches(&vector)?,
            foreign_policy: domain.foreign_policy.matches(&vector),
            retail: domain.retail.matches(&vector).map_or(0.0, |m| m.similarity),
        };
        self.domain_matches
            .insert(question.to_string(), found.clone());
        Some(found)
    }

    /// The library match that puts the question out of domain, if one does: the general
    /// library against `in_domain` (the best cosine of the question as written with any
    /// candidate clause of the version in force),
    /// or the foreign-policy library against both that and the retail library.
    pub fn out_of_domain_match<'m>(
        &self,
        found: &'m DomainMatches,
        in_domain: f32,
    ) -> Option<&'m DomainMatch> {
        if found.general.similarity - in_domain >= self.rule.out_of_domain_margin {
            return Some(&found.general);
        }
        found.foreign_policy.as_ref().filter(|foreign| {
            foreign.similarity - found.retail.max(in_domain) >= self.rule.foreign_policy_margin
        })
    }

    /// Whether the whole question is at least as close to requests no retail policy answers
    /// as to both requests about a retailer's goods and the closest clause (`in_domain`): the
    /// comparison of [`Self::out_of_domain_match`] without its margin, which a phrase about
    /// something else ([`Self::foreign_subjects`]) needs to be more than context.
    pub fn leans_foreign(&self, found: &DomainMatches, in_domain: f32) -> bool {
        found
            .foreign_policy
            .as_ref()
            .is_some_and(|foreign| foreign.similarity >= found.retail.max(in_domain))
    }

    /// What the question names that the region's corpus does not cover.
    pub fn foreign(&self, serving: &ServingState, region: &str, question: &str) -> Vec<Foreign> {
        let key = (
            serving.manifest_sha.clone(),
            region.to_string(),
            question.to_string(),
        );
        self.foreign_names
            .get_or_insert_with(&key, || self.scope(serving, region).foreign(question))
    }

    /// Things the question asks a rule about that no version of the region mentions and the
    /// version in force has no equivalent for ([`policy_core::scope::uncovered_subjects`]).
    pub fn uncovered(
        &self,
        serving: &ServingState,
        region: &str,
        question: &str,
        expansion: &QueryExpansion,
    ) -> Vec<String> {
        let scope = self.scope(serving, region);
        let unknown = |word: &str| {
            !scope.knows(word)
                && expansion.words().find(|t| t.word == word).is_some_and(|t| {
                    !t.in_version
                        && t.equivalents.is_empty()
                        && t.nearest_cosine < self.rule.uncovered_max_cosine
                })
        };
        uncovered_subjects(question, &unknown)
    }

    /// The question as it is weighed against the domain libraries: without the places it
    /// shares with the region's policy ([`RegionScope::without_known_places`]), and those.
    pub fn without_known_places(
        &self,
        serving: &ServingState,
        region: &str,
        question: &str,
    ) -> Option<(String, Vec<String>)> {
        self.scope(serving, region).without_known_places(question)
    }

    /// Phrases of the question around words no policy of the corpus uses and the version in
    /// force does not speak of ([`QueryExpansion::spoken_of`]: "flight" is near "delivery" in
    /// the embedding, which does not make a flight something the policy deals with), that read
    /// as a request no retail policy answers ("booked return flights", "sick leave"): the
    /// foreign-policy library is closer to the phrase than the retail library by the rule's
    /// margin. Judged on the phrase alone, because in the whole question the policy's own words
    /// (refund, cancel) outweigh what it is about.
    pub async fn foreign_subjects(
        &self,
        serving: &ServingState,
        region: &str,
        question: &str,
        expansion: &QueryExpansion,
    ) -> Vec<ForeignSubject> {
        let scope = self.scope(serving, region);
        let unknown = |word: &str| {
            !scope.knows(word)
                && !scope.known_elsewhere(word)
                && expansion
                    .words()
                    .find(|t| t.word == word)
                    .is_some_and(|t| !expansion.spoken_of(t))
        };
        let mut found = Vec::new();
        for phrase in phrases_around(question, &unknown) {
            // The phrase is matched like a question (and remembered with them).
            let Some(DomainMatches {
                foreign_policy: Some(foreign),
                retail,
                ..
            }) = self.out_of_domain(&phrase).await
            else {
                continue;
            };
            tracing::debug!(
                phrase,
                foreign = foreign.similarity,
                retail,
                "subject phrase"
            );
            if foreign.similarity - retail >= self.rule.foreign_subject_margin {
                found.push(ForeignSubject {
                    phrase,
                    foreign,
                    retail,
                });
            }
        }
        found
    }

    /// Whether `subjects` are all the question asks about: the version in force speaks of
    /// none of its words ([`QueryExpansion::spoken_of`]). "Are you hiring opticians, and what
    /// is the salary?" asks only about its foreign phrases; in "I was in hospital, can the
    /// window be extended?" the phrase is context for the window.
    pub fn asks_only_about(subjects: &[ForeignSubject], expansion: &QueryExpansion) -> bool {
        !subjects.is_empty() && !expansion.words().any(|t| expansion.spoken_of(t))
    }

    fn scope(&self, serving: &ServingState, region: &str) -> Arc<RegionScope> {
        let key = (serving.manifest_sha.clone(), region.to_string());
        let mut scopes = self.scopes.lock().unwrap_or_else(|e| e.into_inner());
        scopes
            .entry(key)
            .or_insert_with(|| Arc::new(region_scope(&serving.corpus, serving, region)))
            .clone()
    }

    /// Topics of one version's clauses.
    pub fn topics(&self, serving: &ServingState, version_id: &str) -> Arc<BTreeSet<String>> {
        let key = (serving.manifest_sha.clone(), version_id.to_string());
        let mut topics = self.topics.lock().unwrap_or_else(|e| e.into_inner());
        topics
            .entry(key)
            .or_insert_with(|| {
                Arc::new(
                    serving
                        .corpus
                        .version_clauses(version_id)
                        .map(topic_of)
                        .collect(),
                )
            })
            .clone()
    }

    fn wording(&self, serving: &ServingState, version_id: &str) -> Arc<Wording> {
        let key = (serving.manifest_sha.clone(), version_id.to_string());
        let mut wordings = self.wordings.lock().unwrap_or_else(|e| e.into_inner());
        wordings
            .entry(key)
            .or_insert_with(|| {
                Arc::new(Wording::of(
                    serving
                        .corpus
                        .version_clauses(version_id)
                        .flat_map(|c| [c.title.as_str(), c.text.as_str()]),
                ))
            })
            .clone()
    }

    /// Whether the question asks with a word the version in force never uses: only then can
    /// another region show a topic this version lacks (a cheap test before searching them).
    pub fn asks_beyond(&self, serving: &ServingState, version_id: &str, question: &str) -> bool {
        let in_force = self.wording(serving, version_id);
        focus_parts(question)
            .iter()
            .flat_map(|part| content_words(part))
            .flat_map(|w| analyze(&w))
            .any(|stem| !in_force.stems.contains(&stem))
    }

    /// Whether one of `gap` is written as a name in the question: capitalised, not as the
    /// first word of a sentence.
    pub fn names_any(question: &str, gap: &[String]) -> bool {
        let mut sentence_start = true;
        for word in question.split_whitespace() {
            let bare: String = word.chars().filter(|c| c.is_alphanumeric()).collect();
            let capitalised = bare.starts_with(char::is_uppercase);
            if capitalised
                && !sentence_start
                && gap
                    .iter()
                    .any(|g| g.split(' ').any(|w| w.eq_ignore_ascii_case(&bare)))
            {
                return true;
            }
            sentence_start = word.ends_with(['.', '?', '!', ':']);
        }
        false
    }

    fn clause_wording(&self, serving: &ServingState, clause: &Clause) -> Arc<Wording> {
        let key = (serving.manifest_sha.clone(), clause.clause_id.clone());
        let mut wordings = self
            .clause_wordings
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        wordings
            .entry(key)
            .or_insert_with(|| Arc::new(Wording::of([clause.title.as_str(), clause.text.as_str()])))
            .clone()
    }

    /// Whether `clause` covers every word of the question that `than` covers, and more, read
    /// either way: by the words themselves, or each clause with its own version's reading of
    /// the question (a word or its equivalent there: "freeze" is "pause" in a version that
    /// pauses subscriptions).
    pub fn asks_more(clause: (&Clause, &QueryExpansion), than: (&Clause, &QueryExpansion)) -> bool {
        // The question's words a clause covers, by `expansion`'s reading of them.
        let covered = |(clause, expansion): (&Clause, &QueryExpansion)| -> HashSet<String> {
            let text = format!("{} {}", clause.title, clause.text);
            expansion
                .words()
                .zip(expansion.covered_words(&text))
                .filter(|(_, covered)| *covered)
                .map(|(term, _)| term.word.clone())
                .collect()
        };
        let more = |a: &HashSet<String>, b: &HashSet<String>| a.len() > b.len() && b.is_subset(a);
        let plain = |(clause, expansion): (&Clause, &QueryExpansion)| {
            covered((clause, &expansion.own_words()))
        };
        let (literal, literal_own) = (plain(clause), plain(than));
        let (read, read_own) = (covered(clause), covered(than));
        // One reading shows more and the other does not show the reverse.
        (more(&literal, &literal_own) && !more(&read_own, &read))
            || (more(&read, &read_own) && !more(&literal_own, &literal))
    }

    /// Words and two-word phrases of what the question asks ([`focus_parts`]) that `clause`
    /// uses and the version in force uses nowhere: "handling" in "is there a handling fee?"
    /// when the fee was retracted, "price adjustment" when only "price" remains.
    pub fn gap(
        &self,
        serving: &ServingState,
        version_id: &str,
        question: &str,
        clause: &Clause,
    ) -> Vec<String> {
        let in_force = self.wording(serving, version_id);
        let other = self.clause_wording(serving, clause);
        let mut gap = Vec::new();
        for part in focus_parts(question) {
            let words: Vec<&str> = part
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect();
            let content: Vec<Option<String>> = words
                .iter()
                .map(|w| {
                    let is_content = content_words(w).len() == 1;
                    is_content.then(|| analyze(w).concat())
                })
                .collect();
            for (i, stem) in content.iter().enumerate() {
                let Some(stem) = stem else { continue };
                if other.stems.contains(stem) && !in_force.stems.contains(stem) {
                    gap.push(words[i].to_string());
                }
                if let Some(Some(next)) = content.get(i + 1) {
                    let pair = (stem.clone(), next.clone());
                    if other.pairs.contains(&pair) && !in_force.pairs.contains(&pair) {
                        gap.push(format!("{} {}", words[i], words[i + 1]));
                    }
                }
            }
        }
        // Each word once, as first written ("the Trail Club ... the club").
        let mut seen = HashSet::new();
        gap.retain(|w| seen.insert(w.to_lowercase()));
        gap
    }

    /// Given how the version in force and the region's other versions answered, whether the
    /// version in force lacks the question's topic.
    pub fn not_covered(
        &self,
        serving: &ServingState,
        in_force: (&str, f64),
        others: Vec<VersionMatch>,
    ) -> Option<NotCovered> {
        let (version_id, confidence) = in_force;
        let own_topics = self.topics(serving, version_id);
        let evidence = others
            .into_iter()
            .filter(|m| !own_topics.contains(&m.topic))
            .filter(|m| {
                // Clearly better matched, or matched at least as well with words of the
                // question the version in force never uses. Another region's policy only shows
                // a topic through such words: its wording differs from this region's anyway.
                let better = m.confidence >= self.rule.min_confidence
                    && m.confidence - confidence >= self.rule.margin;
                let with_words = !m.gap.is_empty() && m.confidence >= confidence;
                // Holding more of what is asked, as confident as the version in force.
                let asks_more = m.asks_more
                    && m.confidence >= self.rule.min_confidence
                    && m.confidence >= confidence;
                // A programme asked about by a name only the other version uses.
                let by_name = m.names_it && m.confidence >= self.rule.min_confidence;
                if m.other_region {
                    with_words || by_name
                } else {
                    better || with_words || by_name || asks_more
                }
            })
            .max_by(|a, b| a.confidence.total_cmp(&b.confidence))?;
        let covered_by = serving
            .manifest
            .versions()
            .filter(|v| self.topics(serving, &v.id).contains(&evidence.topic))
            .map(|v| v.id.clone())
            .collect();
        Some(NotCovered {
            topic: evidence.topic.clone(),
            covered_by,
            evidence,
        })
    }
}

fn region_scope(corpus: &Corpus, serving: &ServingState, region: &str) -> RegionScope {
    let (here, elsewhere): (Vec<&Clause>, Vec<&Clause>) =
        corpus.clauses().iter().partition(|c| c.region == region);
    let texts = |clauses: Vec<&Clause>| -> Vec<String> {
        clauses
            .into_iter()
            .flat_map(|c| [c.text.clone(), c.title.clone()])
            .collect()
    };
    let titles: Vec<&str> = here.iter().map(|c| c.title.as_str()).collect();
    let (here, elsewhere) = (texts(here.clone()), texts(elsewhere));
    RegionScope::new(here.iter().map(String::as_str), serving.manifest.regions())
        .knowing_elsewhere(elsewhere.iter().map(String::as_str))
        .knowing_titles(titles)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serving() -> ServingState {
        ServingState::from_corpus(crate::fakes::tiny_corpus())
    }

    /// The gate the tests judge with: coverage needs 0.7 confidence and a 0.2 margin.
    fn gate(out_of_domain_margin: f32) -> AnswerabilityGate {
        AnswerabilityGate::new(AnswerabilityRule {
            out_of_domain_margin,
            foreign_policy_margin: 0.08,
            uncovered_max_cosine: 0.45,
            foreign_subject_margin: 0.05,
            min_confidence: 0.7,
            margin: 0.2,
        })
    }

    #[test]
    fn a_topic_only_another_version_has_is_not_covered() {
        let serving = serving();
        let gate = gate(0.1);
        let other = |topic: &str, confidence| VersionMatch {
            version_id: "eu-v2".into(),
            clause_id: "eu-v2#sec-9.9".into(),
            topic: topic.into(),
            confidence,
            gap: Vec::new(),
            other_region: false,
            names_it: false,
            asks_more: false,
        };
        let v1_topics = gate.topics(&serving, "eu-v1");
        let shared = v1_topics.iter().next().unwrap().clone();
        // The version in force has the topic: whatever the scores, it is covered.
        assert_eq!(
            gate.not_covered(&serving, ("eu-v1", 0.1), vec![other(&shared, 0.99)]),
            None
        );
        // A new topic, clearly better matched elsewhere: not covered.
        let found = gate
            .not_covered(&serving, ("eu-v1", 0.5), vec![other("price_match", 0.9)])
            .unwrap();
        assert_eq!(found.topic, "price_match");
        assert!(found.reason("eu-v1").contains("eu-v2#sec-9.9"));
        // Not clearly better, or not confident: the version in force answers.
        assert_eq!(
            gate.not_covered(&serving, ("eu-v1", 0.8), vec![other("price_match", 0.9)]),
            None
        );
        assert_eq!(
            gate.not_covered(&serving, ("eu-v1", 0.1), vec![other("price_match", 0.6)]),
            None
        );
        // Close scores, but the question's word is one only the other version uses.
        let with_gap = VersionMatch {
            gap: vec!["match".into()],
            ..other("price_match", 0.9)
        };
        let found = gate
            .not_covered(&serving, ("eu-v1", 0.85), vec![with_gap])
            .unwrap();
        assert!(found.reason("eu-v1").contains("\"match\" appears nowhere"));
        // Another region: clearly better is not enough, only the question's own words show it.
        let elsewhere = |gap: Vec<String>| VersionMatch {
            version_id: "us-v1".into(),
            other_region: true,
            gap,
            ..other("trade_in", 0.95)
        };
        assert_eq!(
            gate.not_covered(&serving, ("eu-v1", 0.3), vec![elsewhere(Vec::new())]),
            None
        );
        assert!(gate
            .not_covered(
                &serving,
                ("eu-v1", 0.3),
                vec![elsewhere(vec!["trade".into()])]
            )
            .is_some());
        // Asked by the programme's name: not covered here, however well this version matches.
        let named = VersionMatch {
            names_it: true,
            ..elsewhere(vec!["Ascent".into()])
        };
        assert!(gate
            .not_covered(&serving, ("eu-v1", 0.99), vec![named])
            .is_some());
        assert!(AnswerabilityGate::names_any(
            "Can I trade in boots through the Second Ascent programme?",
            &["ascent".to_string()]
        ));
        assert!(!AnswerabilityGate::names_any(
            "Trade in: how does it work?",
            &["trade".to_string()]
        ));
    }

    #[test]
    fn foreign_phrases_are_all_a_question_asks_when_the_version_speaks_of_none_of_its_words() {
        use policy_core::expansion::QueryTerm;
        let term = |word: &str, in_version: bool, equivalents: &[&str], phrase: bool| QueryTerm {
            word: word.into(),
            in_version,
            equivalents: equivalents.iter().map(|e| e.to_string()).collect(),
            phrase,
            nearest_cosine: 0.5,
        };
        let salary = ForeignSubject {
            phrase: "salary".into(),
            foreign: DomainMatch {
                similarity: 0.4,
                nearest: "employment: salary".into(),
            },
            retail: 0.28,
        };
        let hiring = QueryExpansion {
            terms: vec![
                term("hiring", false, &[], false),
                term("opticians", false, &["optics"], false),
                term("salary", false, &["pay"], false),
            ],
        };
        assert!(AnswerabilityGate::asks_only_about(
            std::slice::from_ref(&salary),
            &hiring
        ));
        // Nothing foreign found: nothing to ask about.
        assert!(!AnswerabilityGate::asks_only_about(&[], &hiring));
        // A word the version uses ("window"), or one a phrase of the question has an
        // equivalent for ("money back" -> "refund"): the question asks about that too.
        let mut window = hiring.clone();
        window.terms.push(term("window", true, &[], false));
        assert!(!AnswerabilityGate::asks_only_about(
            std::slice::from_ref(&salary),
            &window
        ));
        let mut money_back = hiring.clone();
        money_back.terms.extend([
            term("money", false, &[], false),
            term("back", false, &[], false),
            term("money back", false, &["refund"], true),
        ]);
        assert!(!AnswerabilityGate::asks_only_about(
            std::slice::from_ref(&salary),
            &money_back
        ));
    }

    #[test]
    fn a_request_about_something_else_must_beat_retail_requests_and_the_policy() {
        let gate = gate(0.12);
        let near = |similarity: f32, nearest: &str| DomainMatch {
            similarity,
            nearest: nearest.into(),
        };
        let found = |general, foreign, retail| DomainMatches {
            general: near(general, "weather: rain tomorrow"),
            foreign_policy: Some(near(foreign, "travel: refund my flight")),
            retail,
        };
        // "What's the weather tomorrow?": far from every clause.
        let weather = found(0.7, 0.3, 0.2);
        assert_eq!(
            gate.out_of_domain_match(&weather, 0.3)
                .map(|m| m.nearest.as_str()),
            Some("weather: rain tomorrow")
        );
        // "Can I get a refund if I cancel my flight?": far from retail requests and clauses.
        let flight = found(0.4, 0.62, 0.40);
        assert_eq!(
            gate.out_of_domain_match(&flight, 0.45)
                .map(|m| m.nearest.as_str()),
            Some("travel: refund my flight")
        );
        // "Can I get a refund if I cancel my order?": retail requests are as close.
        assert!(gate
            .out_of_domain_match(&found(0.4, 0.62, 0.60), 0.45)
            .is_none());
        // A clause of the version in force is as close: the policy answers it.
        assert!(gate
            .out_of_domain_match(&found(0.4, 0.62, 0.30), 0.58)
            .is_none());
    }

    #[test]
    fn a_clause_asks_more_when_it_holds_what_the_other_holds_and_more() {
        let serving = serving();
        let gate = gate(0.1);
        let clause = |id: &str| serving.corpus.clause(id).unwrap();
        let (fee, refunds) = (clause("eu-v1#sec-3.5"), clause("eu-v2#sec-3.4"));
        let read = QueryExpansion::plain;
        let question = read("Is there a fee on opened electronics?");
        assert!(AnswerabilityGate::asks_more(
            (fee, &question),
            (refunds, &question)
        ));
        assert!(!AnswerabilityGate::asks_more(
            (refunds, &question),
            (fee, &question)
        ));
        // The refunds clause covers "refunds", which the fee clause does not.
        let both = read("Is there a fee on refunds of opened electronics?");
        assert!(!AnswerabilityGate::asks_more(
            (fee, &both),
            (refunds, &both)
        ));
        // A word covered by its equivalent in the clause's own version counts: neither clause
        // says "charge", the fee clause's version reads it as "fee".
        let charge = read("Is there a charge?");
        let mut charge_as_fee = charge.clone();
        charge_as_fee.terms[0].equivalents = vec!["fee".into()];
        assert_eq!(charge.terms[0].word, "charge");
        assert!(!AnswerabilityGate::asks_more(
            (fee, &charge),
            (refunds, &charge)
        ));
        assert!(AnswerabilityGate::asks_more(
            (fee, &charge_as_fee),
            (refunds, &charge)
        ));
        // As confident as the version in force and holding more: the topic is not covered.
        let more = VersionMatch {
            version_id: "eu-v1".into(),
            clause_id: "eu-v1#sec-3.5".into(),
            topic: "price_match".into(),
            confidence: 0.85,
            gap: Vec::new(),
            other_region: false,
            names_it: false,
            asks_more: true,
        };
        assert!(gate
            .not_covered(&serving, ("eu-v2", 0.8), vec![more.clone()])
            .is_some());
        assert!(gate
            .not_covered(&serving, ("eu-v2", 0.9), vec![more.clone()])
            .is_none());
        let unsure = VersionMatch {
            confidence: 0.65,
            ..more
        };
        assert!(gate
            .not_covered(&serving, ("eu-v2", 0.6), vec![unsure])
            .is_none());
    }
}
