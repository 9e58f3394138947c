-- Who placed each order: the authenticated caller, never a field of the request body. Orders placed before this
-- migration have none and are shown to nobody (docs/decisions/0064-demo-orders-belong-to-their-caller.md).
ALTER TABLE demo_orders ADD COLUMN placed_by text CHECK (length(placed_by) BETWEEN 1 AND 512);
