#!/bin/sh
# The identities the system tests' shared server runs as, so every test of the pipeline proves the
# documented grants are enough (docs/decisions/0079-least-privilege-tested.md): a PostgreSQL role that owns
# and migrates the schema, a runtime role without CREATE (given docs/grants/*.sql after the migrations)
# and a RabbitMQ user made by docs/grants/rabbitmq.sh. Run by the build at package time, as a role that
# may create roles and as a user rabbitmqctl accepts (root on the CI machine); rerunning it changes
# nothing but passwords and permissions set to the same values.
#
# Environment: IT_DB_HOST, IT_DB_PORT, IT_DB_NAME, IT_DB_ADMIN (and PGPASSWORD for it), IT_DB_SCHEMA,
# IT_DB_OWNER, IT_DB_OWNER_PASSWORD, IT_DB_RUNTIME, IT_DB_RUNTIME_PASSWORD, IT_BROKER_USER,
# IT_BROKER_PASSWORD, IT_SERVICE, IT_QUEUES (the consumer queues' regular expressions, space-separated).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
grants=$here/../../../../docs/grants

psql -q -X -v ON_ERROR_STOP=1 -h "$IT_DB_HOST" -p "$IT_DB_PORT" -U "$IT_DB_ADMIN" -d "$IT_DB_NAME" \
  -v owner="$IT_DB_OWNER" -v owner_password="$IT_DB_OWNER_PASSWORD" \
  -v runtime="$IT_DB_RUNTIME" -v runtime_password="$IT_DB_RUNTIME_PASSWORD" \
  -v database="$IT_DB_NAME" -v schema="$IT_DB_SCHEMA" <<'SQL'
SELECT format('CREATE ROLE %I', :'owner') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'owner') \gexec
SELECT format('CREATE ROLE %I', :'runtime') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'runtime') \gexec
ALTER ROLE :"owner" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'owner_password';
ALTER ROLE :"runtime" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'runtime_password';
-- the owner creates the schema when Flyway's clean dropped it
GRANT CREATE ON DATABASE :"database" TO :"owner";
-- a schema left by runs as another role: its owner migrates it from now on (the clean empties it)
SELECT format('ALTER SCHEMA %I OWNER TO %I', :'schema', :'owner')
  WHERE EXISTS (SELECT FROM pg_namespace WHERE nspname = :'schema') \gexec
SQL

# shellcheck disable=SC2086 # IT_QUEUES is a list
sh "$grants/rabbitmq.sh" "$IT_BROKER_USER" "$IT_BROKER_PASSWORD" "$IT_SERVICE" $IT_QUEUES
