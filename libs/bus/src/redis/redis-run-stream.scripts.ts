// Lua scripts of RedisRunStream. Each runs atomically, so "is it ended?" and the write that
// depends on it cannot be split by another client's append or end.
//
// Entry layout: a data entry has the single field `d` (the data); the end marker has the single
// field `e`. The end marker is always the last entry of an ended stream.

export const STREAM_ENDED_REPLY = 'STREAM_ENDED';

/** KEYS[1] stream; ARGV data, lifetime ms, nudge channel. Returns the new entry id. */
export const appendScript = `
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if last[1] and last[1][2][1] == 'e' then
  return redis.error_reply('${STREAM_ENDED_REPLY} stream has ended')
end
local id = redis.call('XADD', KEYS[1], '*', 'd', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PUBLISH', ARGV[3], id)
return id
`;

/** KEYS[1] stream; ARGV ttl ms, nudge channel. Returns 1 when ended now, 0 when it already was. */
export const endScript = `
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if last[1] and last[1][2][1] == 'e' then
  return 0
end
local id = redis.call('XADD', KEYS[1], '*', 'e', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[2], id)
return 1
`;

/**
 * KEYS[1] stream; ARGV exclusive start ('-' or '(<id>'), how many. Returns { entries, endedBefore }:
 * when nothing follows the start, endedBefore tells whether the stream's end marker lies before it.
 */
export const readScript = `
local entries = redis.call('XRANGE', KEYS[1], ARGV[1], '+', 'COUNT', ARGV[2])
if #entries == 0 then
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
  if last[1] and last[1][2][1] == 'e' then
    return { entries, 1 }
  end
end
return { entries, 0 }
`;
