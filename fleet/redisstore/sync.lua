-- One sync of one instance with its fleet, atomically (package fleet's doc states the rules;
-- fleet.Memory implements the same in Go). Every key is declared in KEYS and carries the fleet's
-- hash tag, so the script runs on a single Redis, a replicated one or a Redis Cluster:
--   KEYS[1] state   (hash): the bucket (tokens, earned, out, last), the configuration (cfg,
--                   desc), the window (cur: the second the sums are at; sum: the short span's
--                   outcomes, spending and latency bins; lsum: the long span's outcomes; r<i>:
--                   the outcomes of second S with S mod long = i: S, successes, failures,
--                   timeouts, spent, then (bin, count, sum) triples; each a MessagePack array),
--                   bad (values repaired)
--   KEYS[2] seen    (sorted set): instance -> its last sync (µs of Redis TIME)
--   KEYS[3] members (hash): instance -> "held token" (its lease, the token it joined with)
-- A sync reads a constant number of values whatever the window: the spans are rolling sums,
-- and each second that leaves a span is subtracted once, by the first sync of the next second.
--
-- Nothing read from Redis is trusted: a key of the wrong type is deleted, a number that is not
-- finite or out of its range is repaired (clamped, reset or recomputed from what it sums), each
-- repair counted in state's "bad", so that a bad write costs at most one sync's view.
--
-- ARGV: 1 instance, 2 token, 3 short span (s), 4 long span (s), 5 expiry (µs), 6 capacity,
-- 7 refill rate (tokens/s), 8 refill per success, 9 success bonus, 10 most outcomes per second
-- an instance can report, 11 latency bins, 12 configuration fingerprint, 13 its description,
-- 14 leave (1: the instance leaves), 15 successes, 16 failures, 17 timeouts, 18 spent, 19 return,
-- 20 want, 21 held, 22 earned, 23 n, then n triples (bin, count, sum in ns).
-- Reply: {"ok", tokens, leased, granted, spent over the short span, its lease after the sync,
-- members, repaired, the short span's successes, failures and timeouts, the long span's, then
-- (bin, count, sum) triples}, or {"config" | "duplicate", what the fleet runs or who holds the
-- name}.
local KS, KSEEN, KM = KEYS[1], KEYS[2], KEYS[3]
local MAXC = 9007199254740992 -- 2^53: counts above it are not exact in a double
local bad = 0

-- num returns v as a number in [lo, hi], or nil when it is not a finite number there.
local function num(v, lo, hi)
  local x = tonumber(v)
  if x == nil or x ~= x or x < lo or x > hi then return nil end
  return x
end
-- arg reads ARGV[i] as a number in [0, hi] (clamped), 0 when it is not a number.
local function arg(i, hi)
  local x = tonumber(ARGV[i])
  if x == nil or x ~= x or x < 0 then return 0 end
  return math.min(x, hi)
end
-- call runs a command; a key of the wrong type is deleted (counted) and answers nil.
local function call(key, ...)
  local r = redis.pcall(...)
  if type(r) == 'table' and r.err then
    redis.call('DEL', key)
    bad = bad + 1
    return nil
  end
  return r
end

local inst, token = ARGV[1], ARGV[2]
local short, long = arg(3, 3600), arg(4, 3600)
local expiry = arg(5, 1e12)
local cap, rate, per, bonus = arg(6, 1e15), arg(7, 1e15), arg(8, 1e15), arg(9, 1e15)
local maxrate, nbins = arg(10, 1e12), arg(11, 1024)
local fp, desc, leave = ARGV[12], ARGV[13], ARGV[14] == '1'

local tm = redis.call('TIME')
local sec = tonumber(tm[1])
local now = sec * 1000000 + tonumber(tm[2])

-- 1. The state.
local st = call(KS, 'HMGET', KS, 'tokens', 'earned', 'out', 'last', 'cfg', 'cur', 'sum', 'lsum', 'bad') or {}
local fresh = not st[1] and not st[5]

-- 2. Members: instances silent past the expiry, and ghosts whose last sync is in the future,
-- leave; their leases are reclaimed (lost, not refunded: they may have been spent).
local gone = {}
for _, m in ipairs(call(KSEEN, 'ZRANGEBYSCORE', KSEEN, '-inf', string.format('(%.0f', now - expiry), 'LIMIT', 0, 16) or {}) do
  gone[#gone + 1] = m
end
for _, m in ipairs(call(KSEEN, 'ZRANGEBYSCORE', KSEEN, string.format('(%.0f', now + expiry), '+inf', 'LIMIT', 0, 16) or {}) do
  gone[#gone + 1] = m
  bad = bad + 1 -- a last sync in the future: written by something else
end
local reclaimed = 0
if #gone > 0 then
  local hs = call(KM, 'HMGET', KM, unpack(gone)) or {}
  for i = 1, #gone do
    local h = hs[i] and num(string.match(hs[i], '^(%S+)'), 0, cap)
    reclaimed = reclaimed + (h or 0)
  end
  call(KM, 'HDEL', KM, unpack(gone))
  call(KSEEN, 'ZREM', KSEEN, unpack(gone))
end
local prev = tonumber(call(KSEEN, 'ZSCORE', KSEEN, inst) or nil)
local mine = call(KM, 'HGET', KM, inst)
local old, oldtoken = 0, nil
if mine then
  local h, tk = string.match(mine, '^(%S+) (%d+)$')
  old, oldtoken = num(h, 0, cap), tk
  if old == nil then old, oldtoken, bad = 0, nil, bad + 1 end -- not a lease: neither its tokens nor its token count
end
local live = prev ~= nil
if not live then old = 0 end -- a lease the store no longer counts
local n = tonumber(call(KSEEN, 'ZCARD', KSEEN) or 0) or 0
local others = n - (live and 1 or 0)

-- 3. The configuration: one per fleet while it has members; a fleet left empty takes the
-- next one (and starts afresh).
local cfg = st[5]
if cfg and cfg ~= fp then
  if others > 0 then
    return {'config', redis.call('HGET', KS, 'desc') or cfg}
  end
  redis.call('DEL', KS, KSEEN, KM)
  st, fresh, live, old, n, others, reclaimed = {}, true, false, 0, 0, 0, 0
end
if live and oldtoken and oldtoken ~= token then
  return {'duplicate', inst}
end

-- 4. The bucket, every value checked: free tokens and leases within the capacity, credit
-- within a second of refill, the last refill neither in the future nor older than an hour.
local tokens, credit, out, last = cap, 0, 0, now
local recon = false
if not fresh then
  out = num(st[3], 0, cap)
  if out == nil then out, recon, bad = 0, true, bad + 1 end
  -- free tokens that are not a number in [0, capacity] start full, as a bucket Redis lost
  -- would (the leases then take their share back: free plus leased stay within the capacity)
  tokens = num(st[1], 0, cap)
  if tokens == nil then tokens, bad = cap, bad + 1 end
  credit = num(st[2], 0, math.max(1, rate))
  if credit == nil then credit, bad = 0, st[2] and bad + 1 or bad end
  last = num(st[4], now - 3600e6, now + 1e6)
  if last == nil then last, bad = now, bad + 1 end
  last = math.min(last, now)
end
local total = num(st[9], 0, MAXC)
if st[9] and total == nil then bad = bad + 1 end
total = total or 0
out = math.max(0, out - reclaimed)

-- 5. The window. cur is the second the sums are at: a second at most 5 s in the future (a
-- failover to a server whose clock is a little ahead) holds time still; further, or older than
-- the window, the window starts afresh.
local cur = num(st[6], sec - 86400, sec + 5)
if st[6] and cur == nil then bad = bad + 1 end
local w = sec
if cur and cur > sec then w = cur end
local SH, LO = {s = 0, f = 0, t = 0, sp = 0, h = {}}, {s = 0, f = 0, t = 0}

-- parse reads a MessagePack array (cmsgpack, in C: a sync decodes and encodes a few of them):
-- head numbers (counts: whole numbers up to 2^53, the last may be fractional with frac), then
-- (bin, count, sum) triples of latency bins; nil when it is anything else.
local function parse(v, head, frac)
  if type(v) ~= 'string' or #v > 8192 then return nil end
  local ok, x = pcall(cmsgpack.unpack, v)
  if not ok or type(x) ~= 'table' then return nil end
  local len = #x
  if len < head or (len - head) % 3 ~= 0 then return nil end
  local out = {}
  for i = 1, head do
    local z = x[i]
    if type(z) ~= 'number' or z ~= z or z < 0 or z > MAXC or (z ~= math.floor(z) and not (frac and i == head)) then return nil end
    out[i] = z
  end
  local h = {}
  for j = head + 1, len, 3 do
    local i, c, u = x[j], x[j + 1], x[j + 2]
    if type(i) ~= 'number' or type(c) ~= 'number' or type(u) ~= 'number' or i ~= math.floor(i) or i < 0 or i >= nbins
      or h[i] or not (c >= 0 and c <= MAXC) or not (u >= 0 and u <= MAXC) then return nil end
    h[i] = {c, u}
  end
  return out, h
end

local recompute = false
if cur and st[7] and st[8] then
  local x, h = parse(st[7], 4, true)
  local y = parse(st[8], 3)
  if x and y then
    SH.s, SH.f, SH.t, SH.sp, SH.h = x[1], x[2], x[3], x[4], h
    LO.s, LO.f, LO.t = y[1], y[2], y[3]
  else
    recompute, bad = true, bad + 1
  end
elseif cur then
  recompute = true
end
local gap = cur and (w - cur) or long
-- Every 8 s the sums are recomputed from the seconds they sum, and the leases reconciled with
-- the members: a plausible but wrong value heals within 8 s.
if gap > 0 and w % 8 == 0 then recompute, recon = true, true end

local ring = {}    -- slot -> entry {sec, s, f, t, sp, h} as read
local function entry(slot, v)
  if v == nil or v == false then return nil end
  local x, h = parse(v, 5, true)
  if x == nil or x[1] % long ~= slot then
    bad = bad + 1
    redis.call('HDEL', KS, 'r' .. slot)
    return nil
  end
  local most = maxrate * math.max(1, n + 1)
  if x[2] > most or x[3] > most or x[4] > x[3] then
    bad = bad + 1
    redis.call('HDEL', KS, 'r' .. slot)
    return nil
  end
  return {sec = x[1], s = x[2], f = x[3], t = x[4], sp = x[5], h = h}
end
local function add(to, e, sign, hist)
  to.s, to.f, to.t = to.s + sign * e.s, to.f + sign * e.f, to.t + sign * e.t
  if hist then
    to.sp = to.sp + sign * e.sp
    for i, cu in pairs(e.h) do
      local o = to.h[i] or {0, 0}
      to.h[i] = {o[1] + sign * cu[1], o[2] + sign * cu[2]}
    end
  end
end

if gap >= long or cur == nil then
  -- nothing in either span any more (or a new window): empty sums
  SH, LO = {s = 0, f = 0, t = 0, sp = 0, h = {}}, {s = 0, f = 0, t = 0}
  recompute = false
elseif recompute or gap > 4 then
  recompute = true
else
  local fields, slots = {}, {}
  for x = cur + 1, w do
    for _, s in ipairs({(x - short) % long, x % long}) do
      if not slots[s] then slots[s] = true; fields[#fields + 1] = 'r' .. s end
    end
  end
  if not slots[w % long] then fields[#fields + 1] = 'r' .. (w % long) end
  local vs = redis.call('HMGET', KS, unpack(fields))
  for i, f in ipairs(fields) do
    local slot = tonumber(string.sub(f, 2))
    if vs[i] then
      local e = entry(slot, vs[i])
      if e == nil then recompute = true else ring[slot] = e end
    end
  end
  if not recompute then
    for x = cur + 1, w do
      local e = ring[(x - short) % long]
      if e and e.sec == x - short then add(SH, e, -1, true) end
      e = ring[x % long]
      if e and e.sec == x - long then add(LO, e, -1, false) end
    end
    if SH.s < 0 or SH.f < 0 or SH.t < 0 or LO.s < 0 or LO.f < 0 or LO.t < 0 then
      recompute, bad = true, bad + 1
    end
    for _, cu in pairs(SH.h) do
      if cu[1] < 0 or cu[2] < 0 then recompute = true end
    end
  end
end
if recompute then
  SH, LO, ring = {s = 0, f = 0, t = 0, sp = 0, h = {}}, {s = 0, f = 0, t = 0}, {}
  local all = redis.call('HGETALL', KS)
  for i = 1, #all, 2 do
    local slot = string.match(all[i], '^r(%d+)$')
    if slot then
      slot = tonumber(slot)
      local e = entry(slot, all[i + 1])
      if e then
        ring[slot] = e
        if e.sec > w - long and e.sec <= w then add(LO, e, 1, false) end
        if e.sec > w - short and e.sec <= w then add(SH, e, 1, true) end
      end
    end
  end
end

-- 6. This instance's report, bounded by what one instance can do: its outcomes by maxrate over
-- the time since its last sync (a second when it is new), what it spent, returns and holds by
-- the lease the store knows it has, its credit by its successes.
local dt = live and math.min(math.max((now - prev) / 1e6, 0.01), math.max(2 * expiry / 1e6, 1)) or 1
local lim = math.floor(maxrate * dt)
local s, f = math.min(arg(15, MAXC), lim), math.min(arg(16, MAXC), lim)
local t = math.min(arg(17, MAXC), f)
local spent = math.min(arg(18, 1e15), old)
local held = math.min(arg(21, 1e15), old)
local ret = math.min(arg(19, 1e15), old - held)
local want = arg(20, cap)
local earned = math.min(arg(22, 1e15), s * per)
local me = {sec = w, s = s, f = f, t = t, sp = spent, h = {}}
local k = arg(23, 1024)
for j = 0, k - 1 do
  local i, c, u = tonumber(ARGV[24 + 3 * j]), arg(25 + 3 * j, lim), arg(26 + 3 * j, MAXC)
  if i and i >= 0 and i < nbins and i == math.floor(i) and c > 0 and not me.h[i] then
    me.h[i] = {math.floor(c), math.floor(math.min(u, c * 137438953472))}
  end
end
local slot = w % long
local now_e = ring[slot]
if now_e == nil or now_e.sec ~= w then now_e = {sec = w, s = 0, f = 0, t = 0, sp = 0, h = {}} end
add(now_e, me, 1, true)
add(SH, me, 1, true)
add(LO, me, 1, false)

-- 7. Reconcile: the leases are the sum of the members' own (entries without a member dropped).
if recon then
  out = 0
  local ms = redis.call('ZRANGE', KSEEN, 0, -1)
  local known = {}
  for _, m in ipairs(ms) do known[m] = true end
  local all = call(KM, 'HGETALL', KM) or {}
  local orphans = {}
  for i = 1, #all, 2 do
    if known[all[i]] and all[i] ~= inst then
      out = out + (num(string.match(all[i + 1], '^(%S+)'), 0, cap) or 0)
    elseif all[i] ~= inst then
      orphans[#orphans + 1] = all[i]
    end
  end
  if #orphans > 0 then redis.call('HDEL', KM, unpack(orphans)) end
  out = math.min(cap, out + old)
end

-- 8. Refill, then this instance's lease, return and credit, then the grant. Free tokens plus
-- leases never exceed the capacity.
if not fresh and now > last then
  local addt = rate * (now - last) / 1000000
  if per > 0 then
    addt = math.min(addt, credit)
    credit = credit - addt
  end
  tokens = math.max(tokens, math.min(cap - out, tokens + addt))
  last = now
end
out = math.min(cap, math.max(0, out - old + held))
tokens = math.min(tokens, cap - out)
tokens = math.max(tokens, math.min(cap - out, tokens + ret + bonus * s))
if per > 0 and tokens + out < cap then
  credit = math.min(math.max(1, rate), credit + earned)
end
-- A member takes at most twice its share of the capacity, or a tenth of the free tokens when
-- that is more: while the bucket is scarce the grants go round the members, while it is full
-- one member may take a burst.
local members = math.max(1, n + ((live or leave) and 0 or 1))
local g = math.max(0, math.min(want, tokens, math.max(2 * cap / members, tokens / 10)))
if cap == 0 or leave then g = 0 end
tokens = tokens - g
out = out + g
local lease = held + g
if leave then
  out = math.max(0, out - held)
  tokens = math.min(cap - out, tokens + held)
  lease = 0
end

-- 9. Write back.
local function fmt(x) return string.format('%.17g', x) end
local function enc(head, h)
  local m = #head
  for i, cu in pairs(h) do
    if cu[1] > 0 then
      head[m + 1], head[m + 2], head[m + 3] = i, cu[1], cu[2]
      m = m + 3
    end
  end
  return cmsgpack.pack(head)
end
if leave then
  redis.call('ZREM', KSEEN, inst)
  redis.call('HDEL', KM, inst)
  if live then n = n - 1 end
else
  redis.call('ZADD', KSEEN, now, inst)
  redis.call('HSET', KM, inst, fmt(lease) .. ' ' .. token)
  if not live then n = n + 1 end
end
total = total + bad
local hset = {'HSET', KS, 'tokens', fmt(tokens), 'earned', fmt(credit), 'out', fmt(out), 'last', fmt(last),
  'cur', string.format('%.0f', w), 'sum', enc({SH.s, SH.f, SH.t, SH.sp}, SH.h),
  'lsum', cmsgpack.pack({LO.s, LO.f, LO.t}), 'bad', string.format('%.0f', total),
  'r' .. slot, enc({w, now_e.s, now_e.f, now_e.t, now_e.sp}, now_e.h)}
if not cfg or cfg ~= fp then
  local m = #hset
  hset[m + 1], hset[m + 2], hset[m + 3], hset[m + 4] = 'cfg', fp, 'desc', desc
end
redis.call(unpack(hset))
if gap > 0 or fresh then
  local ttl = (long + 3600) * 1000
  redis.call('PEXPIRE', KS, ttl)
  redis.call('PEXPIRE', KSEEN, ttl)
  redis.call('PEXPIRE', KM, ttl)
end

local reply = {'ok', fmt(tokens), fmt(out), fmt(g), fmt(SH.sp), fmt(lease), math.max(n, 0), total,
  SH.s, SH.f, SH.t, LO.s, LO.f, LO.t}
for i, cu in pairs(SH.h) do
  if cu[1] > 0 then
    local m = #reply
    reply[m + 1], reply[m + 2], reply[m + 3] = i, cu[1], cu[2]
  end
end
return reply
