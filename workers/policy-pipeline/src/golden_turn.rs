//! Golden cases as the chat turns a customer would send.

use policy_avro::ChatTurn;
use policy_core::GoldenCase;

/// The turn for `case`; `turn_id` is the case id so outcomes map back to cases.
pub fn turn_for_case(case: &GoldenCase) -> Result<ChatTurn, String> {
    let purchase_at = case.effective_instant()?.map(|t| t.timestamp_millis());
    let sent_at = case.sent_instant()?.timestamp_millis();
    let order_facts = case.order.as_ref().and_then(|o| o.as_object()).map(|o| {
        o.iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    v.as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| v.to_string()),
                )
            })
            .collect()
    });
    Ok(ChatTurn {
        conversation_id: format!("conv-{}", case.id),
        turn_id: case.id.clone(),
        user_id: Some(format!("user-{}", case.id)),
        question: case.question.clone(),
        locale: None,
        channel: Some("golden".into()),
        session_region: case.session_signal().map(str::to_string),
        billing_region: case.billing_region.clone(),
        ip_region: case.ip_region.clone(),
        purchase_at,
        order_id: case.order_id.clone(),
        employee_id: case
            .employee_id
            .clone()
            .or_else(|| case.employee_level.as_ref().map(|l| format!("level-{l}"))),
        sent_at,
        order_facts,
    })
}
