package dev.durability.demo.orders.boundary;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The reference service's public REST API, under {@code /api}. */
@ApplicationPath("api")
public class OrdersApi extends Application {}
