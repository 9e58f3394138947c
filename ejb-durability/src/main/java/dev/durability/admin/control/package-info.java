/** What an admin request says once parsed (a replay window), why one is refused, and the audit every action writes. */
package dev.durability.admin.control;
