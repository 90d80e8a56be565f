#!/usr/bin/env bash
# Checks PostgreSQL (5432), Redis (6379) and NATS with JetStream (4222) on 127.0.0.1 and starts any that is down,
# with the Debian-packaged servers of the development/CI machines. With Docker, use `docker compose up -d` instead.
set -euo pipefail

up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_for() {
  local name=$1 port=$2
  for _ in $(seq 1 60); do
    if up "$port"; then echo "services: $name is up on $port"; return 0; fi
    sleep 0.5
  done
  echo "services: $name did not come up on port $port" >&2
  return 1
}

if ! up 5432; then
  echo "services: starting PostgreSQL"
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -n1)" main start
  else
    echo "services: pg_ctlcluster not found: install PostgreSQL or run 'docker compose up -d postgres'" >&2
    exit 1
  fi
fi
wait_for PostgreSQL 5432

if ! up 6379; then
  echo "services: starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi
wait_for Redis 6379

if ! up 4222; then
  echo "services: starting NATS (JetStream)"
  mkdir -p /var/lib/nats-server
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
    -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log
fi
wait_for NATS 4222
