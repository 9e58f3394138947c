/** The start-up bean that migrates the library's schema and checks the data source it runs on. */
package dev.durability.schema.boundary;
