/** The {@code admin_audit} rows and the typed results of the admin statements (counts, listings, status). */
package dev.durability.admin.entity;
