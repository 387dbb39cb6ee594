// Package fleet runs CORTEX engines as one fleet: many instances of a service, one view of the
// downstream and one retry budget. An engine (package engine) never does I/O; a Member syncs
// the engines of one process with a store in the background, every 100-250 ms, as one
// instance: it publishes their outcomes and spending since the last sync (summed, their latency
// histograms merged), reads the fleet's totals, and leases a small batch of tokens from the
// fleet's bucket for all of them (one engine.FleetPool), all in one atomic call of the store.
// Decisions never wait for it: they read the last view, and the engines fall back to their
// local view as soon as a sync fails or the view grows old (engine.FleetConfig.MaxAge). A
// member that ends leaves: its lease goes back to the bucket at once.
//
// Memory is the in-process store (one process, and the simulator's shared budget); package
// fleet/redisstore is the same store on Redis. Both keep the fleet's outcomes as rolling sums
// over one-second entries (a sync costs the same whatever the window), and the bucket of
// tokens with its leases; storetest runs one test suite against both.
//
// The store's rules, which both implement exactly:
//
//   - Outcomes go into the entry of the store's current second (Redis: its TIME); a view sums
//     the entries of the last ceil(Horizon) seconds (with latencies and spending) and of the
//     last ceil(Window) seconds (counts), the current one included.
//   - A fleet has one configuration (Fingerprint: the budget, the expiry, the spans and
//     Options.Config): a sync of another is refused (RefusedError, ErrRefused) while the fleet
//     has other members, and takes the fleet over, afresh, once it has none. Two instances of
//     one name with different tokens (FleetReport.Token) cannot both be members: the second is
//     refused while the first syncs.
//   - A report counts for what one instance can do: its outcomes up to Options.MaxRate per
//     second since its last sync (a second when it is new), its timeouts up to its failures,
//     the tokens it spent, holds and hands back up to the lease the store knows it has, its
//     earned credit up to what its successes earn. A lying instance moves the fleet's figures
//     by at most that; its tokens, not at all.
//   - The bucket holds Capacity tokens at first (and after Redis restarts empty). It refills
//     at RefillRate tokens per second; with RefillPerSuccess > 0 the refill is earned: each
//     reported success banks that much credit (at most one second of refill banked), and the
//     refill pays out no more than the credit. Each reported success also adds SuccessBonus
//     tokens (0 by default, as in engine.DefaultConfig). Free tokens plus leased ones never
//     exceed the capacity, so over any span the tokens granted, net of those handed back,
//     never exceed the capacity plus the refill (and bonus) of that span.
//   - A sync first reclaims the leases of instances silent for longer than Expiry (their
//     tokens are lost, not refunded: they may have been spent), then records the instance's
//     Held tokens as its lease (FleetView.Held; tokens it reports beyond what the store knows it
//     holds are dropped, as after a store restarted empty) and credits its Return to the bucket,
//     then grants min(Want, free tokens, max(2 × Capacity / members, free tokens / 10)): while
//     the bucket is scarce the grants go round the members; while it is full, one may burst. A report with Leave hands the whole lease back and the
//     store forgets the instance.
package fleet
