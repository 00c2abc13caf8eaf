#!/usr/bin/env python3
"""Renders the golden corpus and cases from the hand-written sources in this folder.

  python3 golden/tools/build_golden.py      # rewrites golden/policies and golden/cases

Sources: corpus_{region}.py (clause texts, per-version facts, retractions, moves, insertions)
and intents.py (customer questions per clause). Every date is pinned; nothing reads the clock.
The Rust test `golden_set_matches_corpus` checks the output against the corpus independently.
"""
import datetime as dt
import json
import re
import shutil
from pathlib import Path

import corpus_br
import corpus_eu
import corpus_jp
import corpus_us
from intents import INJECTIONS, INTENTS, OUT_OF_SCOPE

ROOT = Path(__file__).resolve().parents[1]
REGIONS = {"us": corpus_us, "eu": corpus_eu, "jp": corpus_jp, "br": corpus_br}
REGION_NAMES = {"us": "United States", "eu": "European Union", "jp": "Japan", "br": "Brazil"}
FILES = [("01-orders.md", "Orders", [1, 2]),
         ("02-returns-and-refunds.md", "Returns and refunds", [3, 4]),
         ("03-digital-and-subscriptions.md", "Digital content and subscriptions", [5, 6]),
         ("04-shipping-and-billing.md", "Shipping and billing", [7, 8]),
         ("05-privacy-and-warranty.md", "Privacy and warranty", [9, 10])]
# Every answerable case is sent at this pinned instant unless its version lies in the future.
SENT_AT = "2026-11-01T12:00:00Z"
FUTURE_SENT_AT = "2027-07-01T12:00:00Z"


def layout_of(module, version):
    layout = {s: list(keys) for s, keys in module.BASE_LAYOUT.items()}
    for item in version.get("remove", []):
        key, section = item.split("@")
        layout[int(section)].remove(key)
    for section, additions in version.get("insert", {}).items():
        for key, _ in additions:
            if key not in layout[section]:
                layout[section].append(key)
    return layout


def render_version(region, module, version):
    vid = f"{region}-v{version['n']}"
    facts = dict(module.FACTS, **version.get("facts", {}))
    layout = layout_of(module, version)
    files, clauses = {}, {}
    for file_name, title, sections in FILES:
        lines = [f"# {REGION_NAMES[region]} customer policy: {title}", "",
                 f"Policy version {vid}, effective from {version['from']} (UTC)"
                 + (f" until {version['to']} (UTC)." if version["to"] else "."), ""]
        for s in sections:
            lines += [f"## {s}. {module.SECTIONS[s]}", ""]
            if s in module.SECTION_INTROS:
                lines += [module.SECTION_INTROS[s], ""]
            for i, key in enumerate(layout[s], start=1):
                clause_title, body = module.CLAUSES[key]
                text = body.format(**facts).strip()
                number = f"{s}.{i}"
                tags = [f"<!-- topic: {key} -->"]
                rules = dict(getattr(module, "RULES", {}), **version.get("rules", {}))
                if key in rules:
                    tags.append(f"<!-- rule: {rules[key].format(**facts)} -->")
                lines += [f"### {number} {clause_title}", ""] + tags + [text, ""]
                clauses[key] = {"id": f"{vid}#sec-{number}", "text": text, "number": number}
        files[file_name] = "\n".join(lines).rstrip() + "\n"
    return vid, files, clauses, facts


def sentences(text):
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9])", text) if s.strip()]


def expectations(intent, clause_text, facts):
    keys = intent["fact"] if isinstance(intent["fact"], list) else [intent["fact"]]
    contains = []
    for key in keys:
        if key and key in facts and facts[key] in clause_text:
            value = facts[key]
            # "2 to 4" → the first number is the fact a customer asks about.
            contains.append(re.split(r" to ", value)[0])
            break
    keyword = next((k for k in intent["keywords"] if k.lower() in clause_text.lower()), None)
    if keyword:
        contains.append(keyword)
    assert contains, f"no expectation for {intent} in {clause_text}"
    template = next((s for s in sentences(clause_text) if contains[0].lower() in s.lower()), sentences(clause_text)[0])
    return contains, template


def day(s):
    return dt.date.fromisoformat(s)


def pinned_date(start, end, k, hour=None):
    """A date inside [start, end) at least 3 days from both ends, spread by k."""
    span = (end - start).days - 6
    d = start + dt.timedelta(days=3 + (k * 7) % max(span, 1))
    if hour is None:
        return d.isoformat()
    return f"{d.isoformat()}T{hour:02d}:{(k * 13) % 60:02d}:00Z"


def main():
    policies, cases_dir = ROOT / "policies", ROOT / "cases"
    shutil.rmtree(policies, ignore_errors=True)
    shutil.rmtree(cases_dir, ignore_errors=True)
    cases_dir.mkdir(parents=True)
    manifest = {"regions": {}}
    rendered = {}
    for region, module in REGIONS.items():
        entries = []
        for version in module.VERSIONS:
            vid, files, clauses, facts = render_version(region, module, version)
            rendered[vid] = (version, clauses, facts)
            for name, content in files.items():
                path = policies / region / f"v{version['n']}" / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(content)
            entry = {"id": vid, "effective_from": version["from"], "effective_to": version["to"],
                     "approved_by": version["approved_by"]}
            if "git_sha" in version:
                entry["git_sha"] = version["git_sha"]
            entries.append(entry)
        manifest["regions"][region] = {"versions": list(reversed(entries))}
    (policies / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")

    per_file = {"answers": [], "cutovers": [], "regions": [], "escalations": []}
    counter = {"n": 0}

    def case(bucket, **fields):
        counter["n"] += 1
        fields.setdefault("decay_class", "policy_normative")
        per_file[bucket].append(fields)

    def answer_case(bucket, vid, key, k, effective_date, tags, **signals):
        version, clauses, facts = rendered[vid]
        intent, clause = INTENTS[key], clauses[key]
        contains, template = expectations(intent, clause["text"], facts)
        region = vid.split("-")[0]
        q = intent["q"][k % len(intent["q"])]
        base = {"id": f"gt-{region}-{key.replace('_', '-')}-{vid}-{k:03d}", "question": q}
        if not signals:
            signals = {"region": region}
        base.update(signals)
        base.update({"effective_date": effective_date})
        if version["from"] > SENT_AT[:10]:
            base["sent_at"] = FUTURE_SENT_AT
        base.update({"expected_outcome": "answer", "expected_version_id": vid,
                     "expected_clause_id": clause["id"], "expected_answer_template": template,
                     "expected_answer_contains": contains, "decay_class": intent["decay"]})
        if tags:
            base["tags"] = tags
        case(bucket, **base)

    # 1. Every clause intent of every version, on a pinned date inside its window.
    for vid, (version, clauses, _) in rendered.items():
        start = day(version["from"])
        end = day(version["to"]) if version["to"] else max(day(SENT_AT[:10]), start + dt.timedelta(days=180))
        for k, key in enumerate(sorted(clauses)):
            effective = pinned_date(start, end, k, hour=(9 + k) % 24 if k % 3 == 0 else None)
            answer_case("answers", vid, key, k, effective, [])

    # 2. Both sides of every cutover: same question, different version and answer.
    for region, module in REGIONS.items():
        versions = module.VERSIONS
        for before, after in zip(versions, versions[1:]):
            old, new = f"{region}-v{before['n']}", f"{region}-v{after['n']}"
            cut = day(after["from"])
            _, old_clauses, old_facts = rendered[old]
            _, new_clauses, new_facts = rendered[new]
            for k, key in enumerate(sorted(set(old_clauses) & set(new_clauses))):
                changed = old_clauses[key]["text"] != new_clauses[key]["text"]
                moved = old_clauses[key]["id"].split("#")[1] != new_clauses[key]["id"].split("#")[1]
                if not (changed or moved):
                    continue
                tags = ["cutover"] + (["renumbered"] if moved else [])
                answer_case("cutovers", old, key, 100 + k, (cut - dt.timedelta(days=3)).isoformat(), tags)
                answer_case("cutovers", new, key, 200 + k, (cut + dt.timedelta(days=2)).isoformat(), tags)
            # Instants within the ±24 h ambiguity window escalate instead of guessing.
            for k, (offset, label) in enumerate([(dt.timedelta(hours=5), "after"), (dt.timedelta(hours=-10), "before")]):
                instant = (dt.datetime.combine(cut, dt.time()) + offset).strftime("%Y-%m-%dT%H:%M:%SZ")
                case("cutovers", id=f"gt-{region}-ambiguous-{new}-{label}", question=INTENTS["return_window"]["q"][k],
                     region=region, effective_date=instant, expected_outcome="escalate",
                     expected_version_id=None, expected_clause_id=None, decay_class="policy_normative",
                     tags=["ambiguous_cutover"])

    # 3. Region resolution: IP disagreement, IP alone, missing dates, unknown or absent regions.
    current = {"us": "us-v3", "eu": "eu-v4", "jp": "jp-v3", "br": "br-v3"}
    others = {"us": "eu", "eu": "us", "jp": "us", "br": "eu"}
    for k, (region, vid) in enumerate(current.items()):
        version = rendered[vid][0]
        start = day(version["from"])
        end = day(version["to"]) if version["to"] else day(SENT_AT[:10])
        for j, key in enumerate(["return_window", "refund_timing", "free_shipping"]):
            answer_case("regions", vid, key, 300 + j, pinned_date(start, end, j), ["ip_disagreement"],
                        session_region=region, ip_region=others[region])
        answer_case("regions", vid, "delivery_time", 310, pinned_date(start, end, 1), ["ip_disagreement", "billing"],
                    billing_region=region, ip_region=others[region])
        answer_case("regions", vid, "payment_methods", 320, pinned_date(start, end, 2), ["ip_only"],
                    ip_region=region)
        for j, key in enumerate(["return_window", "free_trial", "deletion_time"]):
            answer_case("regions", vid, key, 330 + j, None, ["missing_date"])
    pii_questions = [
        ("eu-v4", "refund_timing", "My email is jane.doe@example.com and my order was returned, how long does the refund take?"),
        ("us-v3", "return_window", "Hi, I'm John, call me on +1 415 555 0133: how many days do I have to return my order?"),
        ("jp-v3", "free_shipping", "My card 4111 1111 1111 1111 was charged shipping, what is the minimum order for free shipping?"),
        ("br-v3", "installments", "Meu CPF é 123.456.789-09. Can I pay in installments?"),
    ]
    for k, (vid, key, question) in enumerate(pii_questions):
        version, clauses, facts = rendered[vid]
        contains, template = expectations(INTENTS[key], clauses[key]["text"], facts)
        region = vid.split("-")[0]
        start = day(version["from"])
        end = day(version["to"]) if version["to"] else day(SENT_AT[:10])
        case("regions", id=f"gt-{region}-pii-{k:03d}", question=question, region=region,
             effective_date=pinned_date(start, end, k), expected_outcome="answer", expected_version_id=vid,
             expected_clause_id=clauses[key]["id"], expected_answer_template=template,
             expected_answer_contains=contains, decay_class=INTENTS[key]["decay"], tags=["pii"])

    def escalation(case_id, question, decay, tags, **signals):
        fields = {"id": case_id, "question": question}
        fields.update(signals or {"region": "eu"})
        fields.setdefault("effective_date", "2026-05-10")
        fields.update({"expected_outcome": "escalate", "expected_version_id": None,
                       "expected_clause_id": None, "decay_class": decay, "tags": tags})
        case("escalations", **fields)

    regions = list(REGIONS)
    for k, q in enumerate(OUT_OF_SCOPE):
        escalation(f"gt-out-of-scope-{k:03d}", q, "out_of_scope", ["out_of_scope"], region=regions[k % 4])
    for k, q in enumerate(INJECTIONS):
        escalation(f"gt-injection-{k:03d}", q, "adversarial", ["injection"], region=regions[k % 4])
    escalation("gt-unknown-region-uk", INTENTS["return_window"]["q"][0], "policy_normative", ["unknown_region"], region="uk")
    escalation("gt-unknown-region-ca", INTENTS["refund_timing"]["q"][0], "policy_normative", ["unknown_region"], billing_region="ca")
    escalation("gt-no-region-000", INTENTS["return_window"]["q"][1], "policy_normative", ["no_region"], effective_date="2026-05-10")
    escalation("gt-no-region-001", INTENTS["free_trial"]["q"][0], "policy_normative", ["no_region"], effective_date="2025-05-10")
    escalation("gt-before-first-br", INTENTS["return_window"]["q"][0], "policy_normative", ["before_first_version"], region="br", effective_date="2025-12-01")
    escalation("gt-before-first-eu", INTENTS["refund_timing"]["q"][0], "policy_normative", ["before_first_version"], region="eu", effective_date="2023-06-01")
    escalation("gt-before-first-jp", INTENTS["free_shipping"]["q"][0], "policy_normative", ["before_first_version"], region="jp", effective_date="2024-02-01")
    escalation("gt-empty-question", "   ", "garbage", ["unusable_input"], region="us")
    escalation("gt-garbage-question", "\u0000\u0007 %%%% ????", "garbage", ["unusable_input"], region="jp")

    for bucket, rows in per_file.items():
        with open(cases_dir / f"{bucket}.jsonl", "w") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    total = sum(len(r) for r in per_file.values())
    questions = {row["question"] for rows in per_file.values() for row in rows}
    print(f"{len(rendered)} versions, {total} cases, {len(questions)} distinct questions")


if __name__ == "__main__":
    main()
