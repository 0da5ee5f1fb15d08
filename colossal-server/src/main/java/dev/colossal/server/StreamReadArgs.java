package dev.colossal.server;

import java.util.Arrays;
import java.util.OptionalLong;

/**
 * XREAD's options, read in Redis 7.0's order with its errors:
 * {@code [COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]}. The IDs are read
 * later, against the keys ({@code $} is a stream's last ID then), by {@link #ids}.
 *
 * @param count   entries per stream at most (0: all)
 * @param block   milliseconds to wait (0: for ever), or -1 not to wait
 * @param keys    the streams
 * @param idArgs  the ID arguments, one a stream
 */
record StreamReadArgs(long count, long block, byte[][] keys, byte[][] idArgs) {

    /**
     * @param inScript whether a script runs the command: Redis refuses BLOCK there
     * @return the options, or null once the error is answered
     */
    static StreamReadArgs parse(byte[][] a, boolean inScript, Reply r) {
        long count = 0;
        long block = -1;
        for (int i = 1; i < a.length; i++) {
            int more = a.length - i - 1;
            byte[] o = a[i];
            if (Args.is(o, "BLOCK") && more > 0) {
                if (inScript) {
                    r.error("ERR xread command is not allowed with BLOCK option from scripts");
                    return null;
                }
                OptionalLong v = Args.toLong(a[++i]);
                if (v.isEmpty()) {
                    r.error("ERR timeout is not an integer or out of range");
                    return null;
                }
                if (v.getAsLong() < 0) {
                    r.error("ERR timeout is negative");
                    return null;
                }
                block = v.getAsLong();
            } else if (Args.is(o, "COUNT") && more > 0) {
                OptionalLong v = Args.toLong(a[++i]);
                if (v.isEmpty()) {
                    r.error(Errors.NOT_INTEGER);
                    return null;
                }
                count = Math.max(0, v.getAsLong());
            } else if (Args.is(o, "STREAMS") && more > 0) {
                int n = a.length - i - 1;
                if (n % 2 != 0) {
                    r.error("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.");
                    return null;
                }
                return new StreamReadArgs(count, block, Arrays.copyOfRange(a, i + 1, i + 1 + n / 2),
                        Arrays.copyOfRange(a, i + 1 + n / 2, a.length));
            } else if (Args.is(o, "GROUP") && more >= 2) {
                r.error("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
                return null;
            } else if (Args.is(o, "NOACK")) {
                r.error("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
                return null;
            } else {
                r.error(Errors.SYNTAX);
                return null;
            }
        }
        r.error(Errors.SYNTAX);
        return null;
    }

    /**
     * Reads the IDs against the streams, in order, as Redis: a key of another type is WRONGTYPE
     * when met; {@code $} is the stream's last ID (0-0 for none).
     *
     * @return the IDs entries must be above, or null once the error is answered
     * @throws ReplyException WRONGTYPE
     */
    StreamId[] ids(KeyValueStore store, Reply r) {
        StreamId[] out = new StreamId[keys.length];
        for (int i = 0; i < keys.length; i++) {
            byte[] arg = idArgs[i];
            StreamId last = StoredStream.locked(store, keys[i], s -> s == null ? StreamId.MIN : s.lastId());
            if (arg.length == 1 && arg[0] == '$') {
                out[i] = last;
                continue;
            }
            if (arg.length == 1 && arg[0] == '>') {
                r.error("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer>"
                        + " option.");
                return null;
            }
            out[i] = StreamId.parse(arg, 0, true);
            if (out[i] == null) {
                r.error(StreamId.INVALID);
                return null;
            }
        }
        return out;
    }
}
