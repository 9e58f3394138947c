-- A new UUIDv7 (RFC 9562) of the millisecond `at`, its other 74 bits random: the layout of EventEnvelope.builder's
-- ids (which, unlike these, also rise within a millisecond), for rows an application or a script writes by SQL, so
-- that they land in the day partition of `at` (an id that is no UUIDv7 lands in the default partition, which
-- retention prunes row by row; docs/schema.md).
-- The random bits, the version and the variant come from gen_random_uuid(): its text's 13th hex digit is the
-- version (replaced by 7), its 17th the variant (kept).
-- No search path of its own, unlike the schema's other functions: it names only pg_catalog's functions, which come
-- first on any path, and a function without one is inlined into the statement that calls it.
CREATE FUNCTION durability_new_uuid7(at timestamptz DEFAULT clock_timestamp()) RETURNS uuid
    LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
    SELECT CAST(lpad(to_hex(CAST(floor(extract(epoch FROM at) * 1000) AS bigint)), 12, '0') || '7'
                || substr(replace(CAST(gen_random_uuid() AS text), '-', ''), 14) AS uuid)
$$;
