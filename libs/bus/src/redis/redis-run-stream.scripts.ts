// Each script is atomic, so "is it ended?" and the write that depends on it cannot be split.
//
// A data entry has the field `d` first; the stream's first entry may then have `t` and `s` (W3C
// traceparent, tracestate). The end marker, always last, has the single field `e`.
//
// Every write publishes a nudge, a refused one too: idle followers then read again and see it gone.

export const STREAM_ENDED_REPLY = 'STREAM_ENDED';
export const STREAM_LOST_REPLY = 'STREAM_LOST';

/**
 * KEYS[1] stream; ARGV data, lifetime ms, nudge channel, traceparent, tracestate ('': none), existing
 * ('1': refuse to create). Returns the new entry id.
 */
export const appendScript = `
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if last[1] and last[1][2][1] == 'e' then
  return redis.error_reply('${STREAM_ENDED_REPLY} stream has ended')
end
if not last[1] and ARGV[6] == '1' then
  redis.call('PUBLISH', ARGV[3], 'lost')
  return redis.error_reply('${STREAM_LOST_REPLY} stream is gone')
end
local id
if last[1] or ARGV[4] == nil or ARGV[4] == '' then
  id = redis.call('XADD', KEYS[1], '*', 'd', ARGV[1])
elseif ARGV[5] == nil or ARGV[5] == '' then
  id = redis.call('XADD', KEYS[1], '*', 'd', ARGV[1], 't', ARGV[4])
else
  id = redis.call('XADD', KEYS[1], '*', 'd', ARGV[1], 't', ARGV[4], 's', ARGV[5])
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PUBLISH', ARGV[3], id)
return id
`;

/** KEYS[1] stream; ARGV ttl ms, nudge channel, existing. Returns 1 when ended now, 0 when it already was. */
export const endScript = `
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if last[1] and last[1][2][1] == 'e' then
  return 0
end
if not last[1] and ARGV[3] == '1' then
  redis.call('PUBLISH', ARGV[2], 'lost')
  return redis.error_reply('${STREAM_LOST_REPLY} stream is gone')
end
local id = redis.call('XADD', KEYS[1], '*', 'e', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[2], id)
return 1
`;

/**
 * KEYS[1] stream; ARGV exclusive start ('-' or '(<id>'), count. Returns { entries, endedBefore, absent }:
 * when nothing follows the start, whether the end marker lies before it, and whether there is no stream.
 */
export const readScript = `
local entries = redis.call('XRANGE', KEYS[1], ARGV[1], '+', 'COUNT', ARGV[2])
if #entries == 0 then
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
  if not last[1] then
    return { entries, 0, 1 }
  end
  if last[1][2][1] == 'e' then
    return { entries, 1, 0 }
  end
end
return { entries, 0, 0 }
`;
