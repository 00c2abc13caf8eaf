use super::*;

fn detect(question: &str, subjects: TurnSubjects) -> Intent {
    let vocabulary: BTreeSet<String> = ["hotel", "economy", "business"]
        .iter()
        .map(|w| w.to_string())
        .collect();
    detect_intent(question, subjects, &vocabulary)
}

const ORDER: TurnSubjects = TurnSubjects {
    has_order: true,
    has_employee: false,
};
const EMPLOYEE: TurnSubjects = TurnSubjects {
    has_order: false,
    has_employee: true,
};
const NONE: TurnSubjects = TurnSubjects {
    has_order: false,
    has_employee: false,
};

#[test]
fn a_first_person_permission_question_with_an_order_is_a_decision() {
    for q in [
        "Can I still return this order?",
        "is it too late for me to send it back?",
        "am I eligible to exchange the shoes I got?",
        "can this still be returned?",
    ] {
        assert_eq!(detect(q, ORDER), Intent::ReturnEligibility, "{q}");
    }
    for q in [
        "Can I get a refund for my order?",
        "could I get my money back?",
    ] {
        assert_eq!(detect(q, ORDER), Intent::RefundEligibility, "{q}");
    }
}

#[test]
fn without_the_id_or_the_request_it_stays_a_policy_question() {
    assert_eq!(
        detect("Can I still return this order?", NONE),
        Intent::PolicyFaq
    );
    for q in [
        "Is order o-7 still returnable?",
        "Please refund order o-7.",
        "would like to return the scarf, is that possible?",
    ] {
        assert!(detect(q, ORDER).is_decision(), "{q}");
    }
    // How to do it is a policy question even with an order at hand.
    assert_eq!(detect("How do I start a return?", ORDER), Intent::PolicyFaq);
    assert_eq!(
        detect("What is the return window?", ORDER),
        Intent::PolicyFaq
    );
}

#[test]
fn an_employee_asking_to_spend_is_an_approval_request() {
    for q in [
        "Can I book business class to Tokyo?",
        "may I expense a $180 team dinner?",
        "Am I allowed to buy a 2400 USD laptop?",
        "is a $50 team lunch ok to expense?",
        "hotel was 180.01 for the night, is that reimbursable?",
        "flying to Frankfurt next week, can I take business?",
    ] {
        assert_eq!(detect(q, EMPLOYEE), Intent::ExpenseApproval, "{q}");
    }
    assert_eq!(
        detect("What is the meal limit for managers?", EMPLOYEE),
        Intent::PolicyFaq
    );
    assert_eq!(
        detect("may I expense a $180 team dinner?", NONE),
        Intent::PolicyFaq
    );
    assert_eq!(
        detect("Can managers expense client dinners?", EMPLOYEE),
        Intent::PolicyFaq
    );
    assert_eq!(
        detect("Can items be returned after a month?", ORDER),
        Intent::PolicyFaq
    );
}

#[test]
fn subscriptions_and_cancellation_steps_are_labelled() {
    assert_eq!(
        detect("Does my membership renew automatically?", NONE),
        Intent::SubscriptionInfo
    );
    assert_eq!(
        detect("How do I cancel my order?", NONE),
        Intent::CancellationSteps
    );
}

#[test]
fn golden_policy_questions_only_become_decisions_when_they_ask_about_a_return() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../golden/cases");
    let cases = crate::golden::load_cases(&dir).expect("golden cases");
    assert!(cases.len() > 700);
    let both = TurnSubjects {
        has_order: true,
        has_employee: true,
    };
    let mut decisions = 0;
    for case in &cases {
        assert!(!detect(&case.question, NONE).is_decision(), "{}", case.id);
        // With an order and an employee at hand, only a request about giving something back
        // (or spending) may become a decision: "what is the return window?" stays a question.
        let intent = detect(&case.question, both);
        if intent.is_decision() {
            decisions += 1;
            let q = case.question.to_lowercase();
            assert!(
                [
                    "return", "refund", "back", "exchange", "expense", "buy", "book", "cost",
                    "spend", "claim"
                ]
                .iter()
                .any(|w| q.contains(w)),
                "{}: {intent} for {:?}",
                case.id,
                case.question
            );
        }
    }
    assert!(decisions < cases.len() / 4, "{decisions} decisions");
}
