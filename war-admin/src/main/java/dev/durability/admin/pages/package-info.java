/**
 * The admin pages' backing beans (Jakarta Faces): status, replay with preview and confirm, dead-letter triage
 * and recent admin actions. Every action goes through the admin EJBs, which check the role and audit it.
 */
package dev.durability.admin.pages;
