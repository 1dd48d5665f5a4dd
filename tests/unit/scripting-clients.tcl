# The Lua scripts real clients send, unchanged, side by side with Redis 7.0 (issue 10's
# acceptance): Redisson's RedissonLock (acquire, watchdog renewal, unlock with its PUBLISH to
# waiters) and RedissonFairLock (a FIFO queue of waiters in a list plus a sorted set of their
# timeouts), the compare-and-delete release of the Redlock page and node-redlock's multi-key
# acquire / extend / release (with its EVALSHA-then-EVAL fallback on NOSCRIPT), and a BullMQ job
# added with cmsgpack-packed arguments, moved to active with RPOPLPUSH and read back with
# cjson.decode.
#
# Model: each script's text is a fixture copied from the client's own source (project, path and
# commit above it) and sent exactly as the client sends it; Java string concatenations are
# rebuilt piece by piece with java_concat so that not a byte differs. The tests then assert what
# a client relies on: exact replies (nil versus integers, counts, TTLs of the lease), the keys,
# fields, scores and TTLs the script leaves behind, and the messages it publishes. Where a
# figure depends on the clock (a PTTL), the test asserts the range the lease allows and the
# exact arithmetic the script does with it, never how fast anything ran.
#
# Times passed as ARGV ("now" in milliseconds) are fixed, so queue timeouts are reproducible;
# the scripts compare them with each other only, never with the server's clock.

# The string Java builds from "a" + "b" + ...: the pieces joined with nothing between them.
proc java_concat {pieces} {
    return [join $pieces ""]
}

# The first protocol line of the reply to `args`, sent on a fresh RESP2 connection: tells a nil
# ($-1) from an empty string and an integer (:N) from a bulk string, which the parsed replies of
# the test client do not.
proc raw_first_line {args} {
    set c [redis_client]
    $c readraw 1
    set line [$c {*}$args]
    $c close
    return $line
}

# The same in RESP3: the first line after HELLO 3.
proc raw_first_line_resp3 {args} {
    set c [redis_client]
    $c hello 3
    $c readraw 1
    set line [$c {*}$args]
    $c close
    return $line
}

# A deferring client subscribed to `channel`, the subscription confirmed.
proc subscriber_of {channel} {
    set c [redis_deferring_client]
    $c subscribe $channel
    assert_equal [list subscribe $channel 1] [$c read]
    return $c
}

# ---- MessagePack encoders for the BullMQ arguments (the bytes msgpackr produces) ---------------

proc mp_nil {} {return [binary format c 0xc0]}
proc mp_bool {b} {return [binary format c [expr {$b ? 0xc3 : 0xc2}]]}

proc mp_str {s} {
    set n [string length $s]
    if {$n < 32} {return "[binary format c [expr {0xa0 | $n}]]$s"}
    if {$n < 256} {return "[binary format cc 0xd9 $n]$s"}
    return "[binary format cS 0xda $n]$s"
}

# Non-negative integers in the smallest form: fixint, uint16 or uint32.
proc mp_uint {n} {
    if {$n < 128} {return [binary format c $n]}
    if {$n < 65536} {return [binary format cS 0xcd $n]}
    return [binary format cI 0xce $n]
}

# A float64 (0xcb, big-endian), as msgpackr packs integers beyond 32 bits such as timestamps.
proc mp_double {x} {return [binary format cQ 0xcb $x]}

proc mp_array {args} {
    return "[binary format c [expr {0x90 | [llength $args]}]][join $args {}]"
}

# A map from alternating packed keys and values.
proc mp_map {args} {
    return "[binary format c [expr {0x80 | ([llength $args] / 2)}]][join $args {}]"
}

# ---- Redisson 3.11 (redisson/redisson, commit 4339c99bd6244a1168d16a7802567544b84010e1) --------

# redisson/src/main/java/org/redisson/RedissonLock.java, tryLockInnerAsync.
# KEYS[1] lock name; ARGV[1] lease in ms, ARGV[2] "<connection uuid>:<thread id>".
set redisson_acquire [java_concat {
    "if (redis.call('exists', KEYS[1]) == 0) then "
        "redis.call('hset', KEYS[1], ARGV[2], 1); "
        "redis.call('pexpire', KEYS[1], ARGV[1]); "
        "return nil; "
    "end; "
    "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then "
        "redis.call('hincrby', KEYS[1], ARGV[2], 1); "
        "redis.call('pexpire', KEYS[1], ARGV[1]); "
        "return nil; "
    "end; "
    "return redis.call('pttl', KEYS[1]);"
}]

# The same file, renewExpirationAsync (the watchdog, every lease / 3).
set redisson_renew [java_concat {
    "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then "
        "redis.call('pexpire', KEYS[1], ARGV[1]); "
        "return 1; "
    "end; "
    "return 0;"
}]

# The same file, unlockInnerAsync. KEYS[2] the channel waiters subscribe to; ARGV[1] the unlock
# message (LockPubSub.UNLOCK_MESSAGE, 0), ARGV[2] lease, ARGV[3] lock name.
set redisson_unlock [java_concat {
    "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then "
        "return nil;"
    "end; "
    "local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); "
    "if (counter > 0) then "
        "redis.call('pexpire', KEYS[1], ARGV[2]); "
        "return 0; "
    "else "
        "redis.call('del', KEYS[1]); "
        "redis.call('publish', KEYS[2], ARGV[1]); "
        "return 1; "
    "end; "
    "return nil;"
}]

# The same file, forceUnlockAsync.
set redisson_force_unlock [java_concat {
    "if (redis.call('del', KEYS[1]) == 1) then "
    "redis.call('publish', KEYS[2], ARGV[1]); "
    "return 1 "
    "else "
    "return 0 "
    "end"
}]

# redisson/src/main/java/org/redisson/RedissonFairLock.java, tryLockInnerAsync for EVAL_LONG
# (lock() and tryLock(wait, ...)). KEYS: lock, redisson_lock_queue:{name},
# redisson_lock_timeout:{name}; ARGV: lease, lock name, threadWaitTime (5000), current time.
set fair_acquire [java_concat {
    "while true do "
        "local firstThreadId2 = redis.call('lindex', KEYS[2], 0);"
        "if firstThreadId2 == false then "
            "break;"
        "end;"
        "local timeout = tonumber(redis.call('zscore', KEYS[3], firstThreadId2));"
        "if timeout <= tonumber(ARGV[4]) then "
            "redis.call('zrem', KEYS[3], firstThreadId2);"
            "redis.call('lpop', KEYS[2]);"
        "else "
            "break;"
        "end;"
    "end;"
    "if (redis.call('exists', KEYS[1]) == 0) "
        "and ((redis.call('exists', KEYS[2]) == 0) "
            "or (redis.call('lindex', KEYS[2], 0) == ARGV[2])) then "
        "redis.call('lpop', KEYS[2]);"
        "redis.call('zrem', KEYS[3], ARGV[2]);"
        "local keys = redis.call('zrange', KEYS[3], 0, -1);"
        "for i = 1, #keys, 1 do "
            "redis.call('zincrby', KEYS[3], -tonumber(ARGV[3]), keys[i]);"
        "end;"
        "redis.call('hset', KEYS[1], ARGV[2], 1);"
        "redis.call('pexpire', KEYS[1], ARGV[1]);"
        "return nil;"
    "end;"
    "if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then "
        "redis.call('hincrby', KEYS[1], ARGV[2],1);"
        "redis.call('pexpire', KEYS[1], ARGV[1]);"
        "return nil;"
    "end;"
    "local timeout = redis.call('zscore', KEYS[3], ARGV[2]);"
    "if timeout ~= false then "
        "return timeout - tonumber(ARGV[3]) - tonumber(ARGV[4]);"
    "end;"
    "local lastThreadId = redis.call('lindex', KEYS[2], -1);"
    "local ttl;"
    "if lastThreadId ~= false and lastThreadId ~= ARGV[2] then "
        "ttl = tonumber(redis.call('zscore', KEYS[3], lastThreadId)) - tonumber(ARGV[4]);"
    "else "
        "ttl = redis.call('pttl', KEYS[1]);"
    "end;"
    "local timeout = ttl + tonumber(ARGV[3]) + tonumber(ARGV[4]);"
    "if redis.call('zadd', KEYS[3], timeout, ARGV[2]) == 1 then "
        "redis.call('rpush', KEYS[2], ARGV[2]);"
    "end;"
    "return ttl;"
}]

# The same method for EVAL_NULL_BOOLEAN (tryLock() without waiting): 1 when the lock is taken.
# ARGV: lease, lock name, current time, threadWaitTime.
set fair_try_once [java_concat {
    "while true do "
        "local firstThreadId2 = redis.call('lindex', KEYS[2], 0);"
        "if firstThreadId2 == false then "
            "break;"
        "end;"
        "local timeout = tonumber(redis.call('zscore', KEYS[3], firstThreadId2));"
        "if timeout <= tonumber(ARGV[3]) then "
            "redis.call('zrem', KEYS[3], firstThreadId2);"
            "redis.call('lpop', KEYS[2]);"
        "else "
            "break;"
        "end;"
    "end;"
    "if (redis.call('exists', KEYS[1]) == 0) "
        "and ((redis.call('exists', KEYS[2]) == 0) "
            "or (redis.call('lindex', KEYS[2], 0) == ARGV[2])) then "
        "redis.call('lpop', KEYS[2]);"
        "redis.call('zrem', KEYS[3], ARGV[2]);"
        "local keys = redis.call('zrange', KEYS[3], 0, -1);"
        "for i = 1, #keys, 1 do "
            "redis.call('zincrby', KEYS[3], -tonumber(ARGV[4]), keys[i]);"
        "end;"
        "redis.call('hset', KEYS[1], ARGV[2], 1);"
        "redis.call('pexpire', KEYS[1], ARGV[1]);"
        "return nil;"
    "end;"
    "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then "
        "redis.call('hincrby', KEYS[1], ARGV[2], 1);"
        "redis.call('pexpire', KEYS[1], ARGV[1]);"
        "return nil;"
    "end;"
    "return 1;"
}]

# The same file, unlockInnerAsync. KEYS[4] the lock's channel; the next waiter listens on
# "<channel>:<its lock name>". ARGV: unlock message, lease, lock name, current time.
set fair_unlock [java_concat {
    "while true do "
    "local firstThreadId2 = redis.call('lindex', KEYS[2], 0);"
    "if firstThreadId2 == false then "
        "break;"
    "end; "
    "local timeout = tonumber(redis.call('zscore', KEYS[3], firstThreadId2));"
    "if timeout <= tonumber(ARGV[4]) then "
        "redis.call('zrem', KEYS[3], firstThreadId2); "
        "redis.call('lpop', KEYS[2]); "
    "else "
        "break;"
    "end; "
  "end;"
  "if (redis.call('exists', KEYS[1]) == 0) then "
        "local nextThreadId = redis.call('lindex', KEYS[2], 0); "
        "if nextThreadId ~= false then "
            "redis.call('publish', KEYS[4] .. ':' .. nextThreadId, ARGV[1]); "
        "end; "
        "return 1; "
    "end;"
    "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then "
        "return nil;"
    "end; "
    "local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); "
    "if (counter > 0) then "
        "redis.call('pexpire', KEYS[1], ARGV[2]); "
        "return 0; "
    "end; "
    "redis.call('del', KEYS[1]); "
    "local nextThreadId = redis.call('lindex', KEYS[2], 0); "
    "if nextThreadId ~= false then "
        "redis.call('publish', KEYS[4] .. ':' .. nextThreadId, ARGV[1]); "
    "end; "
    "return 1; "
}]

# The same file, acquireFailedAsync (a waiter gives up). KEYS: queue, timeouts; ARGV: lock
# name, threadWaitTime.
set fair_acquire_failed [java_concat {
    "local queue = redis.call('lrange', KEYS[1], 0, -1);"
    "local i = 1;"
    "while i <= #queue and queue[i] ~= ARGV[1] do "
        "i = i + 1;"
    "end;"
    "i = i + 1;"
    "while i <= #queue do "
        "redis.call('zincrby', KEYS[2], -tonumber(ARGV[2]), queue[i]);"
        "i = i + 1;"
    "end;"
    "redis.call('zrem', KEYS[2], ARGV[1]);"
    "redis.call('lrem', KEYS[1], 0, ARGV[1]);"
}]

# ---- The Redlock page (redis.io/docs/manual/patterns/distributed-locks) ------------------------

# "Correct Implementation with a Single Instance": release only if the value is ours. Its SHA1
# is the one every client computes for EVALSHA.
set redlock_release {if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("del",KEYS[1])
else
    return 0
end}
set redlock_release_sha 647c65a442733a1aa440f99908d249d13b4d6c4a

# ---- node-redlock 5 (mike-marcacci/node-redlock, src/index.ts, commit -----------------------
# 09fd36a988fe5f6a3c0a0cb71d65a954c5056a52): template literals, leading newline and indentation
# included. ARGV[1] the random lock value, ARGV[2] the duration in ms.

set node_redlock_acquire {
  -- Return 0 if an entry already exists.
  for i, key in ipairs(KEYS) do
    if redis.call("exists", key) == 1 then
      return 0
    end
  end

  -- Create an entry for each provided key.
  for i, key in ipairs(KEYS) do
    redis.call("set", key, ARGV[1], "PX", ARGV[2])
  end

  -- Return the number of entries added.
  return #KEYS
}

set node_redlock_extend {
  -- Return 0 if an entry exists with a *different* lock value.
  for i, key in ipairs(KEYS) do
    if redis.call("get", key) ~= ARGV[1] then
      return 0
    end
  end

  -- Update the entry for each provided key.
  for i, key in ipairs(KEYS) do
    redis.call("set", key, ARGV[1], "PX", ARGV[2])
  end

  -- Return the number of entries updated.
  return #KEYS
}

set node_redlock_release {
  local count = 0
  for i, key in ipairs(KEYS) do
    -- Only remove entries for *this* lock value.
    if redis.call("get", key) == ARGV[1] then
      redis.pcall("del", key)
      count = count + 1
    end
  end

  -- Return the number of entries removed.
  return count
}

# node-redlock's _attemptOperationOnClient: EVALSHA first, EVAL with the text on NOSCRIPT.
proc redlock_run {script keys args} {
    set sha [r script load $script]
    r script flush
    set n [llength $keys]
    if {[catch {r evalsha $sha $n {*}$keys {*}$args} reply]} {
        assert_match {NOSCRIPT *} $reply
        set reply [r eval $script $n {*}$keys {*}$args]
    }
    return $reply
}

# ---- BullMQ --------------------------------------------------------------------------------

# BullMQ's addJob (taskforcesh/bullmq, src/commands/addJob-8.lua, commit
# 0cdbc16775c302b496c9282803eedb373815ec50), as its loader expands the includes, with two
# changes: the events stream is out (streams are not built in redis-tp yet), so the XADD lines
# and the trimEvents include (XTRIM) are removed and KEYS[8] is unused; getTargetQueueList and
# addJobWithPriority are written as BullMQ 1.x documents them (the meta hash's "paused" field
# picks the paused list; priorities live in a sorted set and the job is LINSERTed before the
# first job of a lower priority). getNextDelayedTimestamp is the include of that commit, and
# updateParentDepsIfNeeded (only for a parent's existing child, not run here) is left out. The
# rest is the file's text.
set bullmq_add_job {--[[
  Adds a job to the queue by doing the following:
    - Increases the job counter if needed.
    - Creates a new job key with the job data.

    - if delayed:
      - computes timestamp.
      - adds to delayed zset.
    - if not delayed
      - Adds the jobId to the wait/paused list in one of three ways:
         - LIFO
         - FIFO
         - prioritized.

    Input:
      KEYS[1] 'wait',
      KEYS[2] 'paused'
      KEYS[3] 'meta'
      KEYS[4] 'id'
      KEYS[5] 'delayed'
      KEYS[6] 'priority'
      KEYS[7] 'completed'
      KEYS[8] events stream key

      ARGV[1] msgpacked arguments array
            [1]  key prefix,
            [2]  custom id (will not generate one automatically)
            [3]  name
            [4]  timestamp
            [5]  parentKey?
            [6]  waitChildrenKey key.
            [7]  parent dependencies key.
            [8]  parent? {id, queueKey}
            [9] repeat job key

      ARGV[2] Json stringified job data
      ARGV[3] msgpacked options

      Output:
        jobId  - OK
        -5     - Missing parent key
]]
local jobId
local jobIdKey
local rcall = redis.call

local args = cmsgpack.unpack(ARGV[1])

local data = ARGV[2]
local opts = cmsgpack.unpack(ARGV[3])

local parentKey = args[5]
local repeatJobKey = args[9]
local parent = args[8]
local parentData

local function addJobWithPriority(priorityKey, priority, targetKey, jobId)
  rcall("ZADD", priorityKey, priority, jobId)
  local count = rcall("ZCOUNT", priorityKey, 0, priority)

  local len = rcall("LLEN", targetKey)
  local id = rcall("LINDEX", targetKey, len - (count - 1))
  if id then
    rcall("LINSERT", targetKey, "BEFORE", id, jobId)
  else
    rcall("RPUSH", targetKey, jobId)
  end
end

local function getTargetQueueList(queueMetaKey, waitKey, pausedKey)
  if rcall("HEXISTS", queueMetaKey, "paused") ~= 1 then
    return waitKey, false
  else
    return pausedKey, true
  end
end

local function getNextDelayedTimestamp(delayedKey)
  local result = rcall("ZRANGE", delayedKey, 0, 0, "WITHSCORES")
  if #result then
    local nextTimestamp = tonumber(result[2])
    if (nextTimestamp ~= nil) then 
      nextTimestamp = nextTimestamp / 0x1000
    end
    return nextTimestamp
  end
end

if parentKey ~= nil then
  if rcall("EXISTS", parentKey) ~= 1 then
    return -5
  end

  parentData = cjson.encode(parent)
end

local jobCounter = rcall("INCR", KEYS[4])

local parentDependenciesKey = args[7]
local timestamp = args[4]
if args[2] == "" then
  jobId = jobCounter
  jobIdKey = args[1] .. jobId
else
  jobId = args[2]
  jobIdKey = args[1] .. jobId
end

if rcall("EXISTS", jobIdKey) == 1 then
  if parentKey ~= nil then
    if rcall("ZSCORE", KEYS[7], jobId) ~= false then
      local returnvalue = rcall("HGET", jobIdKey, "returnvalue")
      updateParentDepsIfNeeded(parentKey, parent['queueKey'], parentDependenciesKey,
        parent['id'], jobIdKey, returnvalue, timestamp)
    else
      if parentDependenciesKey ~= nil then
        rcall("SADD", parentDependenciesKey, jobIdKey)
      end
    end
    rcall("HMSET", jobIdKey, "parentKey", parentKey, "parent", parentData)
  end
  return jobId .. "" -- convert to string
end

-- Store the job.
local jsonOpts = cjson.encode(opts)
local delay = opts['delay'] or 0
local priority = opts['priority'] or 0

local optionalValues = {}
if parentKey ~= nil then
  table.insert(optionalValues, "parentKey")
  table.insert(optionalValues, parentKey)
  table.insert(optionalValues, "parent")
  table.insert(optionalValues, parentData)
end

if repeatJobKey ~= nil then
  table.insert(optionalValues, "rjk")
  table.insert(optionalValues, repeatJobKey)
end

rcall("HMSET", jobIdKey, "name", args[3], "data", ARGV[2], "opts", jsonOpts,
  "timestamp", timestamp, "delay", delay, "priority", priority, unpack(optionalValues))

-- Check if job is delayed
local delayedTimestamp = (delay > 0 and (timestamp + delay)) or 0

-- Check if job is a parent, if so add to the parents set
local waitChildrenKey = args[6]
if waitChildrenKey ~= nil then
  rcall("ZADD", waitChildrenKey, timestamp, jobId)
elseif (delayedTimestamp ~= 0) then
  local score = delayedTimestamp * 0x1000 + bit.band(jobCounter, 0xfff)
  rcall("ZADD", KEYS[5], score, jobId)
  -- If wait list is empty, and this delayed job is the next one to be processed,
  -- then we need to signal the workers by adding a dummy job (jobId 0:delay) to the wait list.
  local target = getTargetQueueList(KEYS[3], KEYS[1], KEYS[2])
  if rcall("LLEN", target) == 0 then
    local nextTimestamp = getNextDelayedTimestamp(KEYS[5])
    if not nextTimestamp or (delayedTimestamp < nextTimestamp) then
      local delay = delayedTimestamp - tonumber(timestamp)
      rcall("LPUSH", target, "0:" .. delay)
    end
  end
else
  local target = getTargetQueueList(KEYS[3], KEYS[1], KEYS[2])

  -- Standard or priority add
  if priority == 0 then
    -- LIFO or FIFO
    local pushCmd = opts['lifo'] and 'RPUSH' or 'LPUSH';
    rcall(pushCmd, target, jobId)
  else
    -- Priority add
    addJobWithPriority(KEYS[6], priority, target, jobId)
  end
end

-- Check if this job is a child of another job, if so add it to the parents dependencies
-- TODO: Should not be possible to add a child job to a parent that is not in the "waiting-children" status.
-- fail in this case.
if parentDependenciesKey ~= nil then
  rcall("SADD", parentDependenciesKey, jobIdKey)
end

return jobId .. "" -- convert to string
}

# Moving the next job to active, from Bull, BullMQ's predecessor by the same authors, whose
# script publishes events instead of appending them to a stream (OptimalBits/bull,
# lib/commands/moveToActive-8.lua, commit 0a6f7dac22580c2afd44c6599d00dd776bf6888c), unchanged.
set bull_move_to_active {--[[
  Move next job to be processed to active, lock it and fetch its data. The job
  may be delayed, in that case we need to move it to the delayed set instead.

  This operation guarantees that the worker owns the job during the locks
  expiration time. The worker is responsible of keeping the lock fresh
  so that no other worker picks this job again.

  Input:
      KEYS[1] wait key
      KEYS[2] active key
      KEYS[3] priority key
      KEYS[4] active event key
      KEYS[5] stalled key

      -- Rate limiting
      KEYS[6] rate limiter key
      KEYS[7] delayed key

      --
      KEYS[8] drained key

      ARGV[1] key prefix
      ARGV[2] lock token
      ARGV[3] lock duration in milliseconds
      ARGV[4] timestamp
      ARGV[5] optional jobid

      ARGV[6] optional jobs per time unit (rate limiter)
      ARGV[7] optional time unit (rate limiter)
      ARGV[8] optional do not do anything with job if rate limit hit
]]

local jobId
local rcall = redis.call

if(ARGV[5] ~= "") then
  jobId = ARGV[5]

  -- clean stalled key
  rcall("SREM", KEYS[5], jobId)
else
  -- move from wait to active
  jobId = rcall("RPOPLPUSH", KEYS[1], KEYS[2])
end

if jobId then
  -- Check if we need to perform rate limiting.
  if(ARGV[6]) then
    local rateLimiterKey = KEYS[6];
    local jobCounter = tonumber(rcall("GET", rateLimiterKey))
    local maxJobs = tonumber(rateLimiterKey)
    local bounceBack = ARGV[8]
    
    -- rate limit hit
    if jobCounter ~= nil and jobCounter >= maxJobs then
      local delay = tonumber(rcall("PTTL", rateLimiterKey))
      local timestamp = delay + tonumber(ARGV[4])

      if bounceBack == 'false' then
        -- put job into delayed queue
        rcall("ZADD", KEYS[7], timestamp * 0x1000 + bit.band(jobCounter, 0xfff), jobId)
        rcall("PUBLISH", KEYS[7], timestamp)
      end
      -- remove from active queue
      rcall("LREM", KEYS[2], 1, jobId)
      return
    else
      jobCounter = rcall("INCR", rateLimiterKey)
      if tonumber(jobCounter) == 1 then
        rcall("PEXPIRE", rateLimiterKey, ARGV[7])
      end
    end
  end

  local jobKey = ARGV[1] .. jobId
  local lockKey = jobKey .. ':lock'

  -- get a lock
  rcall("SET", lockKey, ARGV[2], "PX", ARGV[3])

  rcall("ZREM", KEYS[3], jobId) -- remove from priority
  rcall("PUBLISH", KEYS[4], jobId)
  rcall("HSET", jobKey, "processedOn", ARGV[4])

  return {rcall("HGETALL", jobKey), jobId} -- get job data
else
  rcall("PUBLISH", KEYS[8], "")
end
}

# How BullMQ's stalled-jobs check reads a job's options back (moveStalledJobsToWait: HGET opts,
# cjson.decode, then branches on the fields). Written for this test after that script; not a
# file of BullMQ's.
set bullmq_read_opts {
local rawOpts = redis.call("HGET", KEYS[1], "opts")
local opts = cjson.decode(rawOpts)
local removeOnFailType = type(opts["removeOnFail"])
return {opts["attempts"], removeOnFailType, tostring(opts["backoff"]["delay"]), opts["lifo"] and 1 or 0}
}

# BullMQ's key layout for queue "mail" under the default prefix.
proc bullmq_keys {} {
    set q bull:mail
    return [list $q:wait $q:paused $q:meta $q:id $q:delayed $q:priority $q:completed $q:events]
}

# The packed ARGV[1] of addJob for a job without a parent: prefix, custom id, name, timestamp
# and five absent fields.
proc bullmq_args {custom_id name timestamp} {
    return [mp_array [mp_str bull:mail:] [mp_str $custom_id] [mp_str $name] \
        [mp_double $timestamp] [mp_nil] [mp_nil] [mp_nil] [mp_nil] [mp_nil]]
}

start_server {tags {scripting}} {
    set uuid 6d1c3a4e-2f0b-4d7e-9a55-0c1e2b3f4a5b

    # ---- Redisson RedissonLock -----------------------------------------------------------------

    test {Redisson lock: acquire on a free lock replies nil and leaves a hash with a lease} {
        r del mylock
        assert_equal {$-1} [raw_first_line eval $redisson_acquire 1 mylock 30000 $uuid:1]
        assert_equal [list $uuid:1 1] [r hgetall mylock]
        assert_equal hash [r type mylock]
        assert_range [r pttl mylock] 1 30000
    }

    test {Redisson lock: the holder re-enters, counting in its field and renewing the lease} {
        r pexpire mylock 1000
        assert_equal {$-1} [raw_first_line eval $redisson_acquire 1 mylock 30000 $uuid:1]
        assert_equal 2 [r hget mylock $uuid:1]
        assert_range [r pttl mylock] 1001 30000
    }

    test {Redisson lock: another thread gets the remaining lease as an integer} {
        set reply [raw_first_line eval $redisson_acquire 1 mylock 30000 $uuid:2]
        assert_match {:*} $reply
        assert_range [string range $reply 1 end] 1 30000
        assert_equal [list $uuid:1 2] [r hgetall mylock] "the holder's hash is untouched"
    }

    test {Redisson lock: the watchdog renews only the holder's lease} {
        r pexpire mylock 5000
        assert_equal 0 [r eval $redisson_renew 1 mylock 30000 $uuid:2]
        assert_range [r pttl mylock] 1 5000
        assert_equal 1 [r eval $redisson_renew 1 mylock 30000 $uuid:1]
        assert_range [r pttl mylock] 5001 30000
        assert_equal 0 [r eval $redisson_renew 1 nolock 30000 $uuid:1]
        assert_equal 0 [r exists nolock]
    }

    test {Redisson lock: unlock counts down, then deletes and publishes to the waiters} {
        set channel "redisson_lock__channel:{mylock}"
        set sub [subscriber_of $channel]
        assert_equal {$-1} [raw_first_line eval $redisson_unlock 2 mylock $channel 0 30000 $uuid:2]
        r pexpire mylock 1000
        assert_equal 0 [r eval $redisson_unlock 2 mylock $channel 0 30000 $uuid:1]
        assert_equal 1 [r hget mylock $uuid:1]
        assert_range [r pttl mylock] 1001 30000
        assert_equal 1 [r eval $redisson_unlock 2 mylock $channel 0 30000 $uuid:1]
        assert_equal 0 [r exists mylock]
        assert_equal [list message $channel 0] [$sub read]
        # The lock is free again: the waiter that was told so acquires it.
        assert_equal {$-1} [raw_first_line eval $redisson_acquire 1 mylock 30000 $uuid:2]
        assert_equal [list $uuid:2 1] [r hgetall mylock]
        $sub close
    }

    test {Redisson lock: forceUnlock deletes whoever holds it and wakes the waiters} {
        set channel "redisson_lock__channel:{mylock}"
        set sub [subscriber_of $channel]
        assert_equal 1 [r eval $redisson_force_unlock 2 mylock $channel 0]
        assert_equal [list message $channel 0] [$sub read]
        assert_equal 0 [r eval $redisson_force_unlock 2 mylock $channel 0]
        assert_equal 0 [r exists mylock]
        # Nothing was published the second time: the PING's reply is the next thing read.
        $sub ping
        assert_equal {pong {}} [$sub read]
        $sub close
    }

    test {Redisson lock: in RESP3 the acquire replies null, and the remaining lease an integer} {
        r del mylock
        assert_equal {_} [raw_first_line_resp3 eval $redisson_acquire 1 mylock 30000 $uuid:1]
        set reply [raw_first_line_resp3 eval $redisson_acquire 1 mylock 30000 $uuid:2]
        assert_match {:*} $reply
        assert_range [string range $reply 1 end] 1 30000
        r del mylock
    }

    test {Redisson lock: a batch (MULTI/EXEC) of two threads' acquires replies nil, then the lease} {
        r del mylock
        r multi
        assert_equal QUEUED [r eval $redisson_acquire 1 mylock 30000 $uuid:1]
        assert_equal QUEUED [r eval $redisson_acquire 1 mylock 30000 $uuid:2]
        set replies [r exec]
        assert_equal 2 [llength $replies]
        assert_equal {} [lindex $replies 0]
        assert_range [lindex $replies 1] 1 30000
        assert_equal [list $uuid:1 1] [r hgetall mylock]
        r del mylock
    }

    test {Redisson lock: a lock name holding another type fails with WRONGTYPE from the script} {
        r set mylock plain
        catch {r eval $redisson_acquire 1 mylock 30000 $uuid:1} err
        assert_match {WRONGTYPE Operation against a key holding the wrong kind of value script: *, on @user_script:1.} $err
        assert_equal plain [r get mylock] "the failed script changed nothing"
        r del mylock
    }

    # ---- Redisson RedissonFairLock -------------------------------------------------------------

    set now 1700000000000
    set lock fair
    set queue "redisson_lock_queue:{fair}"
    set timeouts "redisson_lock_timeout:{fair}"
    set fair_channel "redisson_lock__channel:{fair}"

    test {Redisson fair lock: the first thread acquires, and no queue is made} {
        r del $lock $queue $timeouts
        assert_equal {$-1} [raw_first_line eval $fair_acquire 3 $lock $queue $timeouts \
            30000 $uuid:1 5000 $now]
        assert_equal [list $uuid:1 1] [r hgetall $lock]
        assert_range [r pttl $lock] 1 30000
        assert_equal 0 [r exists $queue $timeouts]
    }

    test {Redisson fair lock: waiters queue in order, each timeout one wait after the previous} {
        set ttl2 [r eval $fair_acquire 3 $lock $queue $timeouts 30000 $uuid:2 5000 $now]
        assert_range $ttl2 1 30000
        set ttl3 [r eval $fair_acquire 3 $lock $queue $timeouts 30000 $uuid:3 5000 $now]
        assert_equal [expr {$ttl2 + 5000}] $ttl3
        assert_equal [list $uuid:2 $uuid:3] [r lrange $queue 0 -1]
        assert_equal [expr {$ttl2 + 5000 + $now}] [r zscore $timeouts $uuid:2]
        assert_equal [expr {$ttl2 + 10000 + $now}] [r zscore $timeouts $uuid:3]
        # Asking again does not queue twice; the reply is derived from the stored timeout.
        assert_equal $ttl2 [r eval $fair_acquire 3 $lock $queue $timeouts 30000 $uuid:2 5000 $now]
        assert_equal 2 [r llen $queue]
        # tryLock() without waiting: 1 (not acquired), and the queue is left alone.
        assert_equal 1 [r eval $fair_try_once 3 $lock $queue $timeouts 30000 $uuid:4 $now 5000]
        assert_equal 2 [r zcard $timeouts]
    }

    test {Redisson fair lock: unlock wakes the head of the queue on its own channel} {
        set sub2 [subscriber_of $fair_channel:$uuid:2]
        assert_equal {$-1} [raw_first_line eval $fair_unlock 4 $lock $queue $timeouts \
            $fair_channel 0 30000 $uuid:3 $now]
        assert_equal 1 [r eval $fair_unlock 4 $lock $queue $timeouts $fair_channel 0 30000 \
            $uuid:1 $now]
        assert_equal 0 [r exists $lock]
        assert_equal [list message $fair_channel:$uuid:2 0] [$sub2 read]
        $sub2 close
    }

    test {Redisson fair lock: only the head may take the free lock, then the rest move up} {
        set score3 [r zscore $timeouts $uuid:3]
        # The head (2) acquires; 3's timeout drops by one wait.
        assert_equal {$-1} [raw_first_line eval $fair_acquire 3 $lock $queue $timeouts \
            30000 $uuid:2 5000 $now]
        assert_equal [list $uuid:2 1] [r hgetall $lock]
        assert_equal [list $uuid:3] [r lrange $queue 0 -1]
        assert_equal [expr {$score3 - 5000}] [r zscore $timeouts $uuid:3]
        assert_equal [expr {$score3 - 5000 - 5000 - $now}] \
            [r eval $fair_acquire 3 $lock $queue $timeouts 30000 $uuid:3 5000 $now]
        set sub3 [subscriber_of $fair_channel:$uuid:3]
        assert_equal 1 [r eval $fair_unlock 4 $lock $queue $timeouts $fair_channel 0 30000 \
            $uuid:2 $now]
        assert_equal [list message $fair_channel:$uuid:3 0] [$sub3 read]
        $sub3 close
        assert_equal {$-1} [raw_first_line eval $fair_acquire 3 $lock $queue $timeouts \
            30000 $uuid:3 5000 $now]
        assert_equal [list $uuid:3 1] [r hgetall $lock]
        assert_equal 0 [r exists $queue $timeouts] "the last waiter's pops removed both"
        assert_equal 1 [r eval $fair_unlock 4 $lock $queue $timeouts $fair_channel 0 30000 \
            $uuid:3 $now]
        assert_equal 0 [r exists $lock $queue $timeouts]
    }

    test {Redisson fair lock: a waiter that gives up leaves, and those behind it move up} {
        r eval $fair_acquire 3 $lock $queue $timeouts 30000 $uuid:1 5000 $now
        foreach t {2 3 4} {r eval $fair_acquire 3 $lock $queue $timeouts 30000 $uuid:$t 5000 $now}
        set score2 [r zscore $timeouts $uuid:2]
        set score4 [r zscore $timeouts $uuid:4]
        assert_equal {} [r eval $fair_acquire_failed 2 $queue $timeouts $uuid:3 5000]
        assert_equal [list $uuid:2 $uuid:4] [r lrange $queue 0 -1]
        assert_equal [list $uuid:2 $score2 $uuid:4 [expr {$score4 - 5000}]] \
            [r zrange $timeouts 0 -1 withscores]
    }

    test {Redisson fair lock: waiters whose timeout passed are dropped by the next call} {
        # A call "later" than 2's timeout drops 2 as stale; 4 is still in time.
        set later [r zscore $timeouts $uuid:2]
        set ttl [r eval $fair_acquire 3 $lock $queue $timeouts 30000 $uuid:5 5000 $later]
        assert_equal [list $uuid:4 $uuid:5] [r lrange $queue 0 -1]
        assert_equal {} [r zscore $timeouts $uuid:2]
        assert_equal [expr {[r zscore $timeouts $uuid:4] - $later}] $ttl
        assert_equal [expr {[r zscore $timeouts $uuid:4] + 5000}] [r zscore $timeouts $uuid:5]
        r del $lock $queue $timeouts
    }

    # ---- The Redlock page and node-redlock -----------------------------------------------------

    test {Redlock page: the release script's SHA1 is the one clients compute} {
        r script flush
        assert_equal $redlock_release_sha [r script load $redlock_release]
        assert_equal 1 [r script exists $redlock_release_sha]
    }

    test {Redlock page: compare-and-delete releases only the owner's lock} {
        assert_equal OK [r set resource_name my_random_value NX PX 30000]
        assert_equal {} [r set resource_name other_value NX PX 30000]
        assert_equal 0 [r evalsha $redlock_release_sha 1 resource_name other_value]
        assert_equal my_random_value [r get resource_name]
        assert_equal 1 [r evalsha $redlock_release_sha 1 resource_name my_random_value]
        assert_equal 0 [r exists resource_name]
        assert_equal 0 [r evalsha $redlock_release_sha 1 resource_name my_random_value]
        assert_equal {:0} [raw_first_line eval $redlock_release 1 resource_name my_random_value]
    }

    test {node-redlock: acquire sets every resource with the value and the duration} {
        r del {locks:a} {locks:b}
        assert_equal 2 [redlock_run $node_redlock_acquire {locks:a locks:b} v1 10000]
        assert_equal {v1 v1} [r mget locks:a locks:b]
        assert_range [r pttl locks:a] 1 10000
        assert_range [r pttl locks:b] 1 10000
        # After the NOSCRIPT fallback the EVAL cached the script: EVALSHA now runs it.
        set sha [r script load $node_redlock_acquire]
        assert_equal 0 [r evalsha $sha 2 locks:a locks:c v2 10000]
        assert_equal 0 [r exists locks:c] "nothing is set when one resource is taken"
    }

    test {node-redlock: extend renews only when every resource still holds our value} {
        r pexpire locks:a 2000
        assert_equal 0 [redlock_run $node_redlock_extend {locks:a locks:b} v2 60000]
        assert_range [r pttl locks:a] 1 2000
        assert_equal 2 [redlock_run $node_redlock_extend {locks:a locks:b} v1 60000]
        assert_range [r pttl locks:a] 10001 60000
        assert_range [r pttl locks:b] 10001 60000
    }

    test {node-redlock: release removes only the resources with our value} {
        r set locks:b v9 PX 60000
        assert_equal 1 [redlock_run $node_redlock_release {locks:a locks:b locks:none} v1]
        assert_equal 0 [r exists locks:a]
        assert_equal v9 [r get locks:b]
        assert_equal 0 [redlock_run $node_redlock_release {locks:a locks:b} v1]
        r del locks:b
    }

    # ---- BullMQ --------------------------------------------------------------------------------

    set ts 1700000000000

    test {BullMQ: a job is added with its packed arguments, counter id and stored options} {
        r del {*}[bullmq_keys] bull:mail:1 bull:mail:2 bull:mail:3
        set opts [mp_map [mp_str attempts] [mp_uint 3]]
        set reply [r eval $bullmq_add_job 8 {*}[bullmq_keys] \
            [bullmq_args "" send-welcome $ts] {{"to":"ann@example.com"}} $opts]
        assert_equal 1 $reply
        assert_equal 1 [r get bull:mail:id]
        assert_equal [list name send-welcome data {{"to":"ann@example.com"}} \
            opts {{"attempts":3}} timestamp $ts delay 0 priority 0] [r hgetall bull:mail:1]
        assert_equal {1} [r lrange bull:mail:wait 0 -1]
        assert_equal -1 [r ttl bull:mail:1]
    }

    test {BullMQ: options decoded from MessagePack are stored as JSON that decodes back} {
        set opts [mp_map [mp_str attempts] [mp_uint 5] [mp_str lifo] [mp_bool 1] \
            [mp_str removeOnFail] [mp_bool 0] \
            [mp_str backoff] [mp_map [mp_str type] [mp_str fixed] [mp_str delay] [mp_uint 1500]]]
        assert_equal 2 [r eval $bullmq_add_job 8 {*}[bullmq_keys] \
            [bullmq_args "" send-digest $ts] {{}} $opts]
        # LIFO jobs are RPUSHed: the worker's RPOPLPUSH takes them first.
        assert_equal {1 2} [r lrange bull:mail:wait 0 -1]
        assert_equal {5 boolean 1500 1} [r eval $bullmq_read_opts 1 bull:mail:2]
    }

    test {BullMQ: a delayed job goes to the delayed set with its packed score and a marker} {
        set opts [mp_map [mp_str delay] [mp_uint 60000]]
        r del bull:mail:wait
        assert_equal 3 [r eval $bullmq_add_job 8 {*}[bullmq_keys] \
            [bullmq_args "" reminder $ts] {{}} $opts]
        # score = (timestamp + delay) * 0x1000 + (counter & 0xfff), exact as a double
        assert_equal [expr {($ts + 60000) * 4096 + 3}] [r zscore bull:mail:delayed 3]
        assert_equal {0:60000} [r lrange bull:mail:wait 0 -1]
        assert_equal 60000 [r hget bull:mail:3 delay]
        assert_equal {{"delay":60000}} [r hget bull:mail:3 opts]
    }

    test {BullMQ: a custom id that exists is returned as is, nothing changes} {
        set before [r hgetall bull:mail:3]
        assert_equal 3 [r eval $bullmq_add_job 8 {*}[bullmq_keys] \
            [bullmq_args 3 other $ts] {{}} [mp_map]]
        assert_equal $before [r hgetall bull:mail:3]
        assert_equal 4 [r get bull:mail:id] "the counter moves on anyway"
    }

    test {BullMQ: prioritized jobs are inserted before jobs of lower priority} {
        r del bull:mail:wait bull:mail:priority
        foreach {id prio} {p1 10 p2 5 p3 20} {
            assert_equal $id [r eval $bullmq_add_job 8 {*}[bullmq_keys] \
                [bullmq_args $id job-$id $ts] {{}} [mp_map [mp_str priority] [mp_uint $prio]]]
        }
        assert_equal {p3 p1 p2} [r lrange bull:mail:wait 0 -1]
        assert_equal {p2 5 p1 10 p3 20} [r zrange bull:mail:priority 0 -1 withscores]
    }

    test {BullMQ: a paused queue receives new jobs in its paused list} {
        r hset bull:mail:meta paused 1
        assert_equal late [r eval $bullmq_add_job 8 {*}[bullmq_keys] \
            [bullmq_args late late $ts] {{}} [mp_map]]
        assert_equal {late} [r lrange bull:mail:paused 0 -1]
        r del bull:mail:meta bull:mail:paused
    }

    test {BullMQ: a worker moves the next job to active, locks it and gets its data} {
        set mk [list bull:mail:wait bull:mail:active bull:mail:priority bull:mail:active@ \
            bull:mail:stalled bull:mail:limiter bull:mail:delayed bull:mail:drained]
        set sub [subscriber_of bull:mail:active@]
        set reply [r eval $bull_move_to_active 8 {*}$mk bull:mail: token-1 30000 $ts ""]
        assert_equal [list [list name job-p2 data {{}} opts {{"priority":5}} timestamp $ts \
            delay 0 priority 5 processedOn $ts] p2] $reply
        assert_equal {p3 p1} [r lrange bull:mail:wait 0 -1]
        assert_equal {p2} [r lrange bull:mail:active 0 -1]
        assert_equal {p1 10 p3 20} [r zrange bull:mail:priority 0 -1 withscores]
        assert_equal token-1 [r get bull:mail:p2:lock]
        assert_range [r pttl bull:mail:p2:lock] 1 30000
        assert_equal [list message bull:mail:active@ p2] [$sub read]
        $sub close
    }

    test {BullMQ: with nothing waiting the worker is told the queue is drained} {
        set mk [list bull:mail:wait bull:mail:active bull:mail:priority bull:mail:active@ \
            bull:mail:stalled bull:mail:limiter bull:mail:delayed bull:mail:drained]
        r del bull:mail:wait
        set sub [subscriber_of bull:mail:drained]
        assert_equal {$-1} [raw_first_line eval $bull_move_to_active 8 {*}$mk bull:mail: \
            token-2 30000 $ts ""]
        assert_equal [list message bull:mail:drained {}] [$sub read]
        $sub close
        assert_equal {p2} [r lrange bull:mail:active 0 -1]
    }

    test {Bull: the rate limiter's runtime error is reported with its line, and nothing is undone} {
        # With a limit given, this version of the script counts in the limiter key on the first
        # job, then on the next compares the count with tonumber(<key name>), which is nil.
        set mk [list bull:mail:wait bull:mail:active bull:mail:priority bull:mail:active@ \
            bull:mail:stalled bull:mail:limiter bull:mail:delayed bull:mail:drained]
        r del bull:mail:limiter bull:mail:wait bull:mail:active
        r rpush bull:mail:wait j2 j1
        set reply [r eval $bull_move_to_active 8 {*}$mk bull:mail: token-3 30000 $ts "" \
            10 1000 false]
        assert_equal j1 [lindex $reply 1]
        assert_equal 1 [r get bull:mail:limiter]
        assert_range [r pttl bull:mail:limiter] 1 1000
        set sha [r script load $bull_move_to_active]
        catch {r eval $bull_move_to_active 8 {*}$mk bull:mail: token-4 30000 $ts "" \
            10 1000 false} err
        assert_equal "ERR user_script:56: attempt to compare nil with number script: $sha,\
            on @user_script:56." $err
        # Redis does not roll a script back: the RPOPLPUSH before the error stays done.
        assert_equal {j2 j1} [r lrange bull:mail:active 0 -1]
        assert_equal {} [r lrange bull:mail:wait 0 -1]
        assert_equal 0 [r exists bull:mail:j2:lock]
    }
}
