/** What the benchmark drives over HTTP: the demo's orders API as its clients call it, and the servers' metrics. */
package dev.durability.bench.http;
