-- Demo domain: one shipment per order, created by the shipments consumer of order.placed. order_id is
-- the natural key: derived from immutable event data, so a second delivery can never create a second
-- shipment, whatever the inbox saw.
CREATE TABLE demo_shipments (
    id          uuid          PRIMARY KEY,
    order_id    uuid          NOT NULL UNIQUE,
    sku         text          NOT NULL,
    quantity    int           NOT NULL,
    created_at  timestamptz   NOT NULL DEFAULT now()
);
