package dev.colossal.server;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The stream commands without consumer groups, with Redis 7.0's replies, errors and order of
 * checks: XADD, XLEN, XRANGE, XREVRANGE, XDEL, XTRIM, XSETID and XINFO STREAM. Each holds its
 * key's lock around a {@link StoredStream}; XADD tells {@link KeyWaits} afterwards, for XREAD's
 * waiters ({@link BlockingStreamCommands}).
 */
final class StreamCommands {

    private static final String TOP_ITEM = "ERR The ID specified in XADD is equal or smaller than the target stream top item";

    private final ServerContext ctx;

    StreamCommands(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        t.add("xadd", -5, List.of("write", "denyoom", "fast"), 1, 1, 1, this::xadd);
        t.add("xlen", 2, List.of("readonly", "fast"), 1, 1, 1, this::xlen);
        t.add("xrange", -4, List.of("readonly"), 1, 1, 1, (c, a, r) -> xrange(c, a, r, false));
        t.add("xrevrange", -4, List.of("readonly"), 1, 1, 1, (c, a, r) -> xrange(c, a, r, true));
        t.add("xdel", -3, List.of("write", "fast"), 1, 1, 1, this::xdel);
        t.add("xtrim", -4, List.of("write"), 1, 1, 1, this::xtrim);
        t.add("xsetid", -3, List.of("write", "denyoom", "fast"), 1, 1, 1, this::xsetid);
        t.add("xinfo", -2, List.of(), 0, 0, 0, new StreamInfo(ctx)::xinfo);
    }

    /** Writes an entry as Redis replies it: {@code [id, [field, value, ...]]}, arrays in RESP2 and RESP3. */
    static void entry(Reply r, StreamNode.Entry e) {
        r.array(2);
        r.bulk(e.id().bytes());
        r.array(e.fields().length);
        for (byte[] f : e.fields()) {
            r.bulk(f);
        }
    }

    private void xadd(Client c, byte[][] a, Reply r) {
        StreamTrimArgs t = StreamTrimArgs.parse(a, true, ctx.streamNodeMaxEntries, r);
        if (t == null) {
            return;
        }
        int fields = t.idAt() < 0 ? 0 : a.length - t.idAt() - 1;
        if (t.idAt() < 0 || fields < 2 || fields % 2 != 0) {
            r.error(Errors.arity("xadd"));
            return;
        }
        if (t.id() != null && t.seqGiven() && t.id().isMin()) {
            r.error("ERR The ID specified in XADD must be greater than 0-0");
            return;
        }
        KeyValueStore store = ctx.db(c);
        long[] trimmed = {0};
        StreamId added = StoredStream.locked(store, a[1], found -> {
            if (found == null && t.noMkStream()) {
                r.nullBulk();
                return null;
            }
            StoredStream s = found != null ? found : StoredStream.create(store, a[1]);
            if (s.lastId().isMax()) {
                r.error("ERR The stream has exhausted the last possible ID, unable to add more items");
                return null;
            }
            if (t.id() != null && !t.seqGiven() && t.id().ms() == s.lastId().ms() && s.lastId().seq() == -1L) {
                r.error("ERR Elements are too large to be stored");
                return null;
            }
            StreamId id = nextId(s.lastId(), t, ctx.now());
            if (id == null) {
                r.error(TOP_ITEM);
                return null;
            }
            // one header write for the entry and the trim: the trim commits what it changed, or else
            // commitPending does
            s.append(id, a, t.idAt() + 1, a.length, ctx.streamNodeMaxEntries, ctx.streamNodeMaxBytes);
            trimmed[0] = t.trims() ? s.trim(t.maxLen(), t.minId(), t.approx(), t.limit()) : 0;
            s.commitPending();
            return id;
        });
        if (added == null) {
            return;
        }
        ctx.events.fire(KeyspaceEvents.STREAM, "xadd", c.db, a[1]);
        if (trimmed[0] > 0) {
            ctx.events.fire(KeyspaceEvents.STREAM, "xtrim", c.db, a[1]);
        }
        ctx.waits.ready(c.db, a[1]);
        r.bulk(added.bytes());
    }

    /** @return the ID XADD gives after {@code last} ({@code *}, {@code ms-*} or explicit), or null if it is not above {@code last} */
    static StreamId nextId(StreamId last, StreamTrimArgs t, long nowMillis) {
        StreamId id = t.id();
        if (id == null) {
            return Long.compareUnsigned(nowMillis, last.ms()) > 0 ? new StreamId(nowMillis, 0) : last.next();
        }
        if (!t.seqGiven()) {
            int c = Long.compareUnsigned(id.ms(), last.ms());
            if (c > 0) {
                return new StreamId(id.ms(), 0);
            }
            return c == 0 && last.seq() != -1L ? new StreamId(id.ms(), last.seq() + 1) : null;
        }
        return id.compareTo(last) > 0 ? id : null;
    }

    private void xlen(Client c, byte[][] a, Reply r) {
        StoredStream s = StoredStream.read(ctx.db(c), a[1]);
        r.integer(s == null ? 0 : s.length());
    }

    private void xrange(Client c, byte[][] a, Reply r, boolean rev) {
        byte[] startArg = rev ? a[3] : a[2];
        byte[] endArg = rev ? a[2] : a[3];
        StreamId start = interval(startArg, 0, r);
        if (start == null) {
            return;
        }
        if (exclusive(startArg)) {
            start = start.next();
            if (start == null) {
                r.error("ERR invalid start ID for the interval");
                return;
            }
        }
        StreamId end = interval(endArg, -1L, r);
        if (end == null) {
            return;
        }
        if (exclusive(endArg)) {
            end = end.previous();
            if (end == null) {
                r.error("ERR invalid end ID for the interval");
                return;
            }
        }
        long count = -1;
        for (int j = 4; j < a.length; j++) {
            if (Args.is(a[j], "COUNT") && j + 1 < a.length) {
                OptionalLong v = Args.toLong(a[++j]);
                if (v.isEmpty()) {
                    r.error(Errors.NOT_INTEGER);
                    return;
                }
                count = Math.max(0, v.getAsLong());
            } else {
                r.error(Errors.SYNTAX);
                return;
            }
        }
        StreamId from = start;
        StreamId to = end;
        long limit = count;
        List<StreamNode.Entry> es = StoredStream.locked(ctx.db(c), a[1],
                s -> s == null ? List.of() : limit == 0 ? null : s.range(from, to, limit, rev));
        if (es == null) {
            r.nullArray();   // Redis's answer to COUNT 0 or below on a stream (an empty array on no key)
            return;
        }
        r.array(es.size());
        for (StreamNode.Entry e : es) {
            entry(r, e);
        }
    }

    private static boolean exclusive(byte[] arg) {
        return arg.length > 1 && arg[0] == '(';
    }

    /** @return an XRANGE bound ({@code (} exclusive ones strict), or null once the error is answered */
    private static StreamId interval(byte[] arg, long missingSeq, Reply r) {
        StreamId id = exclusive(arg)
                ? StreamId.parse(java.util.Arrays.copyOfRange(arg, 1, arg.length), missingSeq, true)
                : StreamId.parse(arg, missingSeq, false);
        if (id == null) {
            r.error(StreamId.INVALID);
        }
        return id;
    }

    /**
     * Reads a range bound as XRANGE does, {@code (} exclusive ones moved inwards, with its errors.
     *
     * @param start whether it is the range's start
     * @return the inclusive bound, or null once the error is answered
     */
    static StreamId bound(byte[] arg, long missingSeq, boolean start, Reply r) {
        StreamId id = interval(arg, missingSeq, r);
        if (id == null || !exclusive(arg)) {
            return id;
        }
        id = start ? id.next() : id.previous();
        if (id == null) {
            r.error(start ? "ERR invalid start ID for the interval" : "ERR invalid end ID for the interval");
        }
        return id;
    }

    private void xdel(Client c, byte[][] a, Reply r) {
        // Redis looks at the key before it reads the IDs: a missing stream deletes 0 whatever they are
        long deleted = StoredStream.locked(ctx.db(c), a[1], s -> {
            if (s == null) {
                return 0L;
            }
            List<StreamId> ids = new ArrayList<>(a.length - 2);
            for (int j = 2; j < a.length; j++) {
                StreamId id = StreamId.parse(a[j], 0, true);
                if (id == null) {
                    r.error(StreamId.INVALID);
                    return -1L;
                }
                ids.add(id);
            }
            return s.delete(ids);
        });
        if (deleted < 0) {
            return;
        }
        if (deleted > 0) {
            ctx.events.fire(KeyspaceEvents.STREAM, "xdel", c.db, a[1]);
        }
        r.integer(deleted);
    }

    private void xtrim(Client c, byte[][] a, Reply r) {
        StreamTrimArgs t = StreamTrimArgs.parse(a, false, ctx.streamNodeMaxEntries, r);
        if (t == null) {
            return;
        }
        long deleted = StoredStream.locked(ctx.db(c), a[1],
                s -> s == null ? 0 : s.trim(t.maxLen(), t.minId(), t.approx(), t.limit()));
        if (deleted > 0) {
            ctx.events.fire(KeyspaceEvents.STREAM, "xtrim", c.db, a[1]);
        }
        r.integer(deleted);
    }

    private void xsetid(Client c, byte[][] a, Reply r) {
        StreamId id = StreamId.parse(a[2], 0, true);
        if (id == null) {
            r.error(StreamId.INVALID);
            return;
        }
        Long entriesAdded = null;
        StreamId maxDeleted = null;
        for (int j = 3; j < a.length; j++) {
            boolean more = j + 1 < a.length;
            if (Args.is(a[j], "ENTRIESADDED") && more) {
                OptionalLong v = Args.toLong(a[++j]);
                if (v.isEmpty()) {
                    r.error(Errors.NOT_INTEGER);
                    return;
                }
                if (v.getAsLong() < 0) {
                    r.error("ERR entries_added must be positive");
                    return;
                }
                entriesAdded = v.getAsLong();
            } else if (Args.is(a[j], "MAXDELETEDID") && more) {
                maxDeleted = StreamId.parse(a[++j], 0, true);
                if (maxDeleted == null) {
                    r.error(StreamId.INVALID);
                    return;
                }
                if (id.compareTo(maxDeleted) < 0) {
                    r.error("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
                    return;
                }
            } else {
                r.error(Errors.SYNTAX);
                return;
            }
        }
        Long added = entriesAdded;
        StreamId deleted = maxDeleted != null && maxDeleted.isMin() ? null : maxDeleted;
        String refused = StoredStream.locked(ctx.db(c), a[1], s -> {
            if (s == null) {
                return Errors.NO_SUCH_KEY;
            }
            if (s.length() > 0) {
                StreamNode.Entry top = s.edge(true);
                if (top != null && id.compareTo(top.id()) < 0) {
                    return "ERR The ID specified in XSETID is smaller than the target stream top item";
                }
                if (added != null && s.length() > added) {
                    return "ERR The entries_added specified in XSETID is smaller than the target stream length";
                }
            }
            s.setId(id, added, deleted);
            return null;
        });
        if (refused != null) {
            r.error(refused);
            return;
        }
        ctx.events.fire(KeyspaceEvents.STREAM, "xsetid", c.db, a[1]);
        r.ok();
    }
}
