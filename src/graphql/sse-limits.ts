// What /graphql/stream holds open for a caller, per process: event streams per network address
// (SSE_STREAMS_PER_ADDRESS), and graphql-sse's single connection reservations. A reservation (a PUT)
// is kept in memory until its stream opens, so reservations are capped per address and in total, and
// one that no stream opens within RESERVATION_LIMITS.ttlMs is dropped. A client needs one reservation
// at a time (it opens the stream right after), so 2 per address; the total bounds memory, and filling
// it takes 5,000 addresses at once (a full table refuses only single connection mode, never the
// distinct connections mode that the checkout and the dashboard use). Their tokens are
// crypto.randomUUID() (graphql-sse's default token comes from Math.random).
import { randomUUID } from "node:crypto";
import type { Clock } from "../shared/clock.ts";

export const RESERVATION_LIMITS = { perAddress: 2, total: 10_000, ttlMs: 10_000 };

/** Counts open streams per address; `open` refuses (false) at the cap, `close` gives the place back. */
export function createStreamCounter(perAddress: number) {
  const open = new Map<string, number>();
  let total = 0;
  return {
    open(address: string): boolean {
      const count = open.get(address) ?? 0;
      if (count >= perAddress) return false;
      open.set(address, count + 1);
      total++;
      return true;
    },
    close(address: string) {
      const count = (open.get(address) ?? 1) - 1;
      if (count > 0) open.set(address, count);
      else open.delete(address);
      total--;
    },
    /** open streams of every address (the subscribers on /metrics) */
    total: () => total,
  };
}

interface Reservation {
  address: string;
  at: number;
}

export type ReserveResult = { token: string } | { refused: "address" | "total" };

/**
 * `release(token)`: frees graphql-sse's stream of an expired reservation (graphql-sse keeps it until a
 * stream attaches and ends).
 */
export function createReservations(clock: Clock, release: (token: string) => Promise<void>) {
  // Insertion order is age order: expired ones are at the front.
  const pending = new Map<string, Reservation>();
  const perAddress = new Map<string, number>();

  function forget(token: string, reservation: Reservation) {
    pending.delete(token);
    const count = (perAddress.get(reservation.address) ?? 1) - 1;
    if (count > 0) perAddress.set(reservation.address, count);
    else perAddress.delete(reservation.address);
  }

  const expired = (reservation: Reservation) => clock.now().getTime() - reservation.at >= RESERVATION_LIMITS.ttlMs;

  function dropExpired() {
    for (const [token, reservation] of pending) {
      if (!expired(reservation)) break;
      forget(token, reservation);
      void release(token);
    }
  }

  return {
    reserve(address: string): ReserveResult {
      dropExpired();
      if (pending.size >= RESERVATION_LIMITS.total) return { refused: "total" };
      if ((perAddress.get(address) ?? 0) >= RESERVATION_LIMITS.perAddress) return { refused: "address" };
      const token = randomUUID();
      pending.set(token, { address, at: clock.now().getTime() });
      perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
      return { token };
    },
    /** A stream opens on `token`: its reservation is used (true), or it expired or never existed (false). */
    attach(token: string): boolean {
      dropExpired();
      const reservation = pending.get(token);
      if (!reservation) return false;
      forget(token, reservation);
      return true;
    },
  };
}
