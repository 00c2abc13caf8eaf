"""The clause layout every region's policy follows: section number -> clause keys in order.
Regions and versions differ from it only by clauses they leave out, add or move."""

FULL_LAYOUT = {
    1: ["scope", "business_day"],
    2: ["order_confirmation", "order_cancel", "preorder_charge", "preorder_cancel", "preorder_price"],
    3: ["return_condition", "return_window", "return_exclusions", "return_how", "return_shipping_cost", "holiday_returns"],
    4: ["refund_method", "refund_timing", "restocking_fee", "price_adjustment"],
    5: ["digital_withdrawal", "digital_refund", "faulty_digital", "gift_cards"],
    6: ["auto_renewal", "sub_cancel", "sub_refund", "free_trial", "sub_price_change"],
    7: ["delivery_time", "free_shipping", "express", "damaged_delivery", "lost_parcel"],
    8: ["payment_methods", "installments", "failed_payment", "invoices", "chargebacks"],
    9: ["delete_account", "deletion_time", "data_retention", "data_export", "marketing_optout"],
    10: ["warranty_period", "warranty_claim", "warranty_exclusions"],
}


def layout_without(*keys):
    """FULL_LAYOUT minus the given clause keys."""
    return {section: [k for k in items if k not in keys] for section, items in FULL_LAYOUT.items()}
