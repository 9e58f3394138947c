package com.example.shop.web;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The shop's REST API under {@code /api}. */
@ApplicationPath("/api")
public class ShopApi extends Application {}
