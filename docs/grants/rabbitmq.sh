#!/bin/sh
# The RabbitMQ user of one Durability service, holding exactly the permissions the library uses
# (docs/operations.md#least-privileges). Run where rabbitmqctl reaches the broker; rerunning it sets the
# password and the permissions again.
#
#   rabbitmq.sh USER PASSWORD SERVICE QUEUE...
#
# SERVICE is durability.service-name (the dead-letter queue is SERVICE.dead-letters unless
# DEAD_LETTER_QUEUE names another); each QUEUE is one of the service's consumer queues, as a regular
# expression (orders\.shipments). The environment may name the rest as the service's configuration does:
# VHOST (/), EVENTS_EXCHANGE (durability.events), DEAD_LETTER_EXCHANGE (durability.dead-letters),
# DEAD_LETTER_QUEUE, ALTERNATE_EXCHANGE (none).
set -eu

if [ $# -lt 4 ]; then
  echo "usage: $0 USER PASSWORD SERVICE QUEUE..." >&2
  exit 2
fi
user=$1
password=$2
service=$3
shift 3

# A name as a regular expression that matches only itself.
literal() {
  printf '%s' "$1" | sed 's/[].[^$*+?(){}|\\]/\\&/g'
}

vhost=${VHOST:-/}
events=$(literal "${EVENTS_EXCHANGE:-durability.events}")
dead_letters=$(literal "${DEAD_LETTER_EXCHANGE:-durability.dead-letters}")
dead_letter_queue=$(literal "${DEAD_LETTER_QUEUE:-$service.dead-letters}")
queues=$(printf '%s|' "$@")
queues="(${queues%|})"
# The delay queues a consumer's retries wait in: <queue>.retry.<ms>ms.
retries="$queues\\.retry\\.[0-9]+ms"
alternate=""
if [ -n "${ALTERNATE_EXCHANGE:-}" ]; then
  alternate="|$(literal "$ALTERNATE_EXCHANGE")"
fi

# configure: declare the exchanges and queues (the alternate exchange's queue has its name).
configure="^($events|$dead_letters|$queues|$retries|$dead_letter_queue$alternate)\$"
# write: publish to the events exchange (the drain, replays) and the dead-letter exchange (a consumer's
# dead letters); publish to amq.default, the default exchange (retries to the delay queues, the drain's
# readiness probe), which also lets a delay queue dead-letter back into its consumer queue; bind a
# queue (write on the queue); declare a queue with a dead-letter exchange (write on that exchange).
write="^($events|$dead_letters|amq\\.default|$queues|$dead_letter_queue$alternate)\$"
# read: consume the consumer queues and the dead-letter queue; bind to an exchange (read on the
# exchange); declare a queue with a dead-letter exchange (read on the queue, so on the delay queues).
read="^($events|$dead_letters|$queues|$retries|$dead_letter_queue$alternate)\$"

if rabbitmqctl -q list_users | cut -f1 | grep -qxF "$user"; then
  rabbitmqctl -q change_password "$user" "$password"
else
  rabbitmqctl -q add_user "$user" "$password"
fi
rabbitmqctl -q set_permissions -p "$vhost" "$user" "$configure" "$write" "$read"
