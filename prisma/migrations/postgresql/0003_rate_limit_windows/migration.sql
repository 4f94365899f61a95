-- Hand-written, PostgreSQL only: the counting table of rate-limiter-flexible (src/gate/rate-limit.ts),
-- whose columns the library defines, so it is no Prisma model. SQLite counts in memory instead.
-- IF NOT EXISTS: servers before this migration made the table themselves at start.
CREATE TABLE IF NOT EXISTS "rate_limit_windows" (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
