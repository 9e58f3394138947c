-- Demo domain of the reference deployment (orders placed through the public API). Not part of the library.
CREATE TABLE demo_orders (
    id          uuid          PRIMARY KEY,
    customer    text          NOT NULL CHECK (length(customer) BETWEEN 1 AND 200),
    sku         text          NOT NULL CHECK (length(sku) BETWEEN 1 AND 100),
    quantity    int           NOT NULL CHECK (quantity BETWEEN 1 AND 1000),
    placed_at   timestamptz   NOT NULL DEFAULT now()
);
