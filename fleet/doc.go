// Package fleet runs CORTEX engines as one fleet: many instances of a service, one view of the
// downstream and one retry budget. An engine (package engine) never does I/O; a Member syncs
// it with a store in the background, every 100-250 ms: it publishes the engine's outcomes and
// spending since the last sync, reads the fleet's totals, and leases a small batch of tokens
// from the fleet's bucket, all in one atomic call of the store. Decisions never wait for it:
// they read the last view, and the engine falls back to its local view as soon as a sync fails
// or the view grows old (engine.FleetConfig.MaxAge).
//
// Memory is the in-process store (one process, and the simulator's shared budget); package
// fleet/redisstore is the same store on Redis. Both keep the fleet's outcomes in buckets of
// one second that expire, and the bucket of tokens with its leases; storetest runs one test
// suite against both.
//
// The store's rules, which both implement exactly:
//
//   - Outcomes go into the bucket of the store's current second (Redis: its TIME); a view sums
//     the buckets of the last ceil(Horizon) seconds (with latencies) and of the last
//     ceil(Window) seconds (counts), the current one included.
//   - The bucket holds Capacity tokens at first (and after Redis restarts empty). It refills
//     at RefillRate tokens per second; with RefillPerSuccess > 0 the refill is earned: each
//     reported success banks that much credit (at most one second of refill banked), and the
//     refill pays out no more than the credit. Each reported success also adds SuccessBonus
//     tokens (0 by default, as in engine.DefaultConfig). Free tokens plus leased ones never
//     exceed the capacity, so over any span the tokens granted, net of those handed back,
//     never exceed the capacity plus the refill (and bonus) of that span.
//   - A sync first reclaims the leases of instances silent for longer than Expiry (their
//     tokens are lost, not refunded: they may have been spent), then records the instance's
//     Held tokens as its lease and credits its Return to the bucket, then grants
//     min(Want, free tokens).
package fleet
