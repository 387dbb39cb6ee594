-- One sync of one instance with its fleet, atomically (package fleet's doc states the rules;
-- fleet.Memory implements the same in Go). Keys are built from the prefix ARGV[1], which holds
-- a hash tag ("cortex:{NAME}:"), so that every key of a fleet lives in one slot.
--
-- ARGV: prefix, instance, short span (s), long span (s), expiry (µs), capacity, refill rate
-- (tokens/s), refill per success, success bonus, successes, failures, timeouts, spent, return, want, held,
-- earned, n, then n triples (bin, count, sum in ns).
-- Reply: tokens, leased, granted, spent over the short span (strings), instances, the short
-- span's successes, failures and timeouts, the long span's, then (bin, count, sum) triples.
local p, inst = ARGV[1], ARGV[2]
local short, long = tonumber(ARGV[3]), tonumber(ARGV[4])
local expiry = tonumber(ARGV[5])
local cap, rate, per = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local bonus = tonumber(ARGV[9])
local s, f, t = tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12])
local spent, ret, want, held, earned = tonumber(ARGV[13]), tonumber(ARGV[14]), tonumber(ARGV[15]), tonumber(ARGV[16]), tonumber(ARGV[17])
local n = tonumber(ARGV[18])

local tm = redis.call('TIME')
local sec = tonumber(tm[1])
local now = sec * 1000000 + tonumber(tm[2])

-- 1. This instance's outcomes go into the current second, kept as long as a view can read it.
local wk = p .. 'w:' .. sec
redis.call('HINCRBY', wk, 's', s)
if f > 0 then redis.call('HINCRBY', wk, 'f', f) end
if t > 0 then redis.call('HINCRBY', wk, 't', t) end
if spent > 0 then redis.call('HINCRBYFLOAT', wk, 'spent', spent) end
for j = 0, n - 1 do
  local i = ARGV[19 + 3 * j]
  redis.call('HINCRBY', wk, 'c' .. i, ARGV[20 + 3 * j])
  redis.call('HINCRBY', wk, 'u' .. i, ARGV[21 + 3 * j])
end
redis.call('EXPIREAT', wk, sec + long + 1)

-- 2. The bucket (full when missing: a new fleet, or Redis restarted empty).
local bk, hk, seen = p .. 'bucket', p .. 'held', p .. 'seen'
local b = redis.call('HMGET', bk, 'tokens', 'earned', 'out', 'last')
local tokens, credit, out, last = cap, 0, 0, now
local fresh = not b[1]
if not fresh then
  tokens, credit, out, last = tonumber(b[1]), tonumber(b[2]), tonumber(b[3]), tonumber(b[4])
end

-- 3. Leases of instances silent for longer than the expiry are reclaimed: lost, not refunded.
local stale = redis.call('ZRANGEBYSCORE', seen, '-inf', '(' .. (now - expiry))
for _, m in ipairs(stale) do
  out = math.max(0, out - tonumber(redis.call('HGET', hk, m) or '0'))
  redis.call('HDEL', hk, m)
  redis.call('ZREM', seen, m)
end
redis.call('ZADD', seen, now, inst)
local old = tonumber(redis.call('HGET', hk, inst) or '0')

-- 4. Refill, then this instance's lease, return and credit, then the grant.
if not fresh and now > last then
  local add = rate * (now - last) / 1000000
  if per > 0 then
    add = math.min(add, credit)
    credit = credit - add
  end
  tokens = math.max(tokens, math.min(cap - out, tokens + add))
  last = now
end
out = math.max(0, out - old + held)
tokens = math.max(tokens, math.min(cap - out, tokens + ret + bonus * s))
if per > 0 and tokens + out < cap then
  credit = math.min(math.max(1, rate), credit + earned)
end
local g = math.max(0, math.min(want, tokens))
if cap == 0 then g = 0 end
tokens = tokens - g
out = out + g
redis.call('HSET', hk, inst, tostring(held + g))
redis.call('HSET', bk, 'tokens', tostring(tokens), 'earned', tostring(credit), 'out', tostring(out), 'last', tostring(last))
local ttl = (long + 3600) * 1000
redis.call('PEXPIRE', bk, ttl)
redis.call('PEXPIRE', hk, ttl)
redis.call('PEXPIRE', seen, ttl)
local members = redis.call('ZCARD', seen)

-- 5. The view: the short span with latencies, the long span's counts.
local ss, sf, st, ls, lf, lt, sp = 0, 0, 0, 0, 0, 0, 0
local hist = {}
for i = sec - long + 1, sec do
  local k = p .. 'w:' .. i
  if i > sec - short then
    local all = redis.call('HGETALL', k)
    for j = 1, #all, 2 do
      local name, v = all[j], tonumber(all[j + 1])
      if name == 's' then ss = ss + v
      elseif name == 'f' then sf = sf + v
      elseif name == 't' then st = st + v
      elseif name == 'spent' then sp = sp + v
      else hist[name] = (hist[name] or 0) + v end
    end
  else
    local c = redis.call('HMGET', k, 's', 'f', 't')
    ls = ls + (tonumber(c[1]) or 0)
    lf = lf + (tonumber(c[2]) or 0)
    lt = lt + (tonumber(c[3]) or 0)
  end
end
local reply = {tostring(tokens), tostring(out), tostring(g), tostring(sp), members, ss, sf, st, ss + ls, sf + lf, st + lt}
for name, v in pairs(hist) do
  if string.sub(name, 1, 1) == 'c' and v > 0 then
    local i = string.sub(name, 2)
    table.insert(reply, tonumber(i))
    table.insert(reply, v)
    table.insert(reply, hist['u' .. i] or 0)
  end
end
return reply
