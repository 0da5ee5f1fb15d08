package dev.colossal.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a write sends its replicas, as Redis 7.0 rewrites it: the replica must end with the data
 * the master has, so what is relative in time or picked by the master goes in its absolute or
 * explicit form. Times relative to now become deadlines read back from the key (PEXPIREAT, SET ..
 * PXAT); INCRBYFLOAT and HINCRBYFLOAT send their result; SPOP sends SREM of the members it popped;
 * blocking pops and moves send their non-blocking forms, LMPOP and ZMPOP (blocking or not) the one
 * key's LPOP, RPOP, ZPOPMIN or ZPOPMAX with the count popped; GETDEL sends DEL; RESTORE with a TTL its deadline and ABSTTL; XADD sends the ID it gave; XREADGROUP,
 * XCLAIM and XAUTOCLAIM send XCLAIM .. FORCE JUSTID of each pending entry as it now is, and the
 * group's last ID; MIGRATE sends DEL of the keys that left. Everything else goes as it came.
 *
 * <p>One for each command, under the replication order ({@link Replicas}), so the read-backs see
 * the key as the command left it.
 */
final class Propagation {

    private final CommandTable table;
    private final int db;
    private final long now;

    Propagation(CommandTable table, int db, long now) {
        this.table = table;
        this.db = db;
        this.now = now;
    }

    /**
     * @return whether {@code name} is sent when it succeeds, though it may fire no keyspace event
     *     (its rewrite sends nothing if it changed nothing)
     */
    static boolean sentWhenDone(String name, byte[][] args) {
        return switch (name) {
            // and the stream commands that change pending entries and groups, which fire no event in Redis 7.0
            case "flushall", "flushdb", "swapdb", "publish", "spublish", "xack", "xclaim", "xautoclaim", "xreadgroup" -> true;
            case "function" -> args.length > 1 && (Args.is(args[1], "DELETE") || Args.is(args[1], "FLUSH")
                    || Args.is(args[1], "LOAD") || Args.is(args[1], "RESTORE"));
            case "xgroup" -> args.length > 2 && !Args.is(args[1], "HELP");
            default -> false;
        };
    }

    /** @return the commands that make a replica do what {@code name args} did, given its {@code reply} */
    List<byte[][]> rewrite(String name, byte[][] args, byte[] reply) {
        Object answer = RespValues.read(reply);
        return switch (name) {
            case "expire", "pexpire", "expireat", "pexpireat" -> one(deadline(args[1]));
            case "setex", "psetex" -> one(setAt(args[1], args[3]));
            case "set" -> hasTtl(args, 3) ? one(setAt(args[1], args[2])) : one(args);
            case "getex" -> persists(args) ? one(words("PERSIST", args[1])) : one(deadline(args[1]));
            case "incrbyfloat" -> one(words("SET", args[1], answer, "KEEPTTL"));
            case "hincrbyfloat" -> one(words("HSET", args[1], args[2], answer));
            case "spop" -> answer instanceof List<?> l ? (l.isEmpty() ? List.of() : one(words("SREM", args[1], l)))
                    : answer == null ? List.of() : one(words("SREM", args[1], answer));
            case "blpop", "brpop" -> answer instanceof List<?> l
                    ? one(words(name.equals("blpop") ? "LPOP" : "RPOP", l.get(0))) : List.of();
            case "bzpopmin", "bzpopmax" -> answer instanceof List<?> l ? one(words("ZREM", l.get(0), l.get(1))) : List.of();
            case "brpoplpush" -> answer != null ? one(words("RPOPLPUSH", args[1], args[2])) : List.of();
            case "blmove" -> answer != null ? one(words("LMOVE", args[1], args[2], args[3], args[4])) : List.of();
            case "lmpop", "zmpop" -> multiPop(args, 1, answer);
            case "blmpop", "bzmpop" -> multiPop(args, 2, answer);
            case "getdel" -> answer != null ? one(words("DEL", args[1])) : List.of();
            case "restore", "restore-asking" -> one(restored(args));
            case "xadd" -> xadd(args, answer);
            case "xtrim" -> one(trimmed(args[1]));
            case "xreadgroup" -> xreadgroup(args, answer);
            case "xclaim" -> claimed(args[1], args[2], ids(answer));
            case "xautoclaim" -> xautoclaim(args, answer);
            case "migrate" -> migrated(args);
            default -> one(args);
        };
    }

    /**
     * LMPOP, ZMPOP and their blocking forms pop from one key: they go as that key's LPOP, RPOP,
     * ZPOPMIN or ZPOPMAX with the count popped, as Redis sends them (nothing if nothing was popped).
     *
     * @param numKeysAt where the number of keys is; the direction follows the keys
     */
    private static List<byte[][]> multiPop(byte[][] args, int numKeysAt, Object answer) {
        if (!(answer instanceof List<?> popped) || popped.size() != 2 || !(popped.get(1) instanceof List<?> elements)) {
            return List.of();
        }
        byte[] direction = args[numKeysAt + 1 + (int) Args.toLong(args[numKeysAt]).orElseThrow()];
        String pop = Args.is(direction, "LEFT") ? "LPOP" : Args.is(direction, "RIGHT") ? "RPOP"
                : Args.is(direction, "MIN") ? "ZPOPMIN" : "ZPOPMAX";
        return one(words(pop, popped.get(0), Integer.toString(elements.size())));
    }

    /**
     * RESTORE with a TTL relative to now goes with the deadline it gave and ABSTTL, as Redis sends
     * it, so a replica that runs it later gives the key the same deadline.
     */
    private byte[][] restored(byte[][] a) {
        if (Args.is(a[2], "0")) {
            return a;
        }
        for (int i = 4; i < a.length; i++) {
            if (Args.is(a[i], "ABSTTL")) {
                return a;
            }
        }
        long at = number(query("PEXPIRETIME", a[1]));
        if (at < 0) {
            return a;
        }
        byte[][] out = Arrays.copyOf(a, a.length + 1);
        out[2] = Args.bytes(Long.toString(at));
        out[a.length] = Args.bytes("ABSTTL");
        return out;
    }

    /** @return whether options from {@code from} on set a TTL (EX, PX, EXAT, PXAT) */
    private static boolean hasTtl(byte[][] a, int from) {
        for (int i = from; i < a.length; i++) {
            if (Args.is(a[i], "EX") || Args.is(a[i], "PX") || Args.is(a[i], "EXAT") || Args.is(a[i], "PXAT")) {
                return true;
            }
        }
        return false;
    }

    private static boolean persists(byte[][] a) {
        for (int i = 2; i < a.length; i++) {
            if (Args.is(a[i], "PERSIST")) {
                return true;
            }
        }
        return false;
    }

    /** PEXPIREAT key deadline as the key now has it, or DEL if it is gone (a deadline in the past). */
    private byte[][] deadline(byte[] key) {
        long at = number(query("PEXPIRETIME", key));
        if (at == -2) {
            return words("DEL", key);
        }
        return at == -1 ? words("PERSIST", key) : words("PEXPIREAT", key, Long.toString(at));
    }

    private byte[][] setAt(byte[] key, byte[] value) {
        long at = number(query("PEXPIRETIME", key));
        if (at == -2) {
            return words("DEL", key);
        }
        return at == -1 ? words("SET", key, value) : words("SET", key, value, "PXAT", Long.toString(at));
    }

    /** XADD with the ID it gave and no trimming options; an exact XTRIM after it if it trimmed. */
    private List<byte[][]> xadd(byte[][] a, Object id) {
        if (!(id instanceof byte[])) {
            return List.of();
        }
        int i = 2;
        boolean trims = false;
        while (i < a.length) {
            if (Args.is(a[i], "NOMKSTREAM")) {
                i++;
            } else if (Args.is(a[i], "MAXLEN") || Args.is(a[i], "MINID")) {
                trims = true;
                i += Args.is(a[i + 1], "=") || Args.is(a[i + 1], "~") ? 3 : 2;
            } else if (Args.is(a[i], "LIMIT")) {
                i += 2;
            } else {
                break;
            }
        }
        List<Object> add = new ArrayList<>(List.of("XADD", a[1], id));
        add.addAll(Arrays.asList(a).subList(i + 1, a.length));
        byte[][] xadd = words(add.toArray());
        return trims ? List.of(xadd, trimmed(a[1])) : one(xadd);
    }

    /** XTRIM key MAXLEN = its length now: the replica keeps the same entries, however the master trimmed. */
    private byte[][] trimmed(byte[] key) {
        return words("XTRIM", key, "MAXLEN", "=", Long.toString(number(query("XLEN", key))));
    }

    /** XREADGROUP: the consumer, each entry delivered as it now pends, and the group's last ID. */
    private List<byte[][]> xreadgroup(byte[][] a, Object answer) {
        byte[] group = a[2];
        byte[] consumer = a[3];
        List<byte[][]> out = new ArrayList<>();
        if (!(answer instanceof List<?> streams)) {
            return out;
        }
        boolean map = streams.size() % 2 == 0 && !streams.isEmpty() && streams.get(0) instanceof byte[];
        for (int s = 0; s < streams.size(); s += map ? 2 : 1) {
            Object key;
            Object entries;
            if (map) {
                key = streams.get(s);
                entries = streams.get(s + 1);
            } else {
                List<?> pair = (List<?>) streams.get(s);
                key = pair.get(0);
                entries = pair.get(1);
            }
            byte[] k = (byte[]) key;
            out.add(words("XGROUP", "CREATECONSUMER", k, group, consumer));
            out.addAll(claimed(k, group, ids(entries)));
            byte[][] last = lastId(k, group);
            if (last != null) {
                out.add(last);
            }
        }
        return out;
    }

    private List<byte[][]> xautoclaim(byte[][] a, Object answer) {
        if (!(answer instanceof List<?> l) || l.size() < 2) {
            return List.of();
        }
        List<byte[][]> out = new ArrayList<>(claimed(a[1], a[2], ids(l.get(1))));
        if (l.size() > 2 && l.get(2) instanceof List<?> deleted && !deleted.isEmpty()) {
            List<Object> ack = new ArrayList<>(List.of("XACK", a[1], a[2]));
            ack.addAll(deleted);
            out.add(words(ack.toArray()));
        }
        return out;
    }

    /** The IDs of entries (each {@code [id, fields]}) or of IDs alone; deleted ones (null) skipped. */
    private static List<byte[]> ids(Object entries) {
        List<byte[]> out = new ArrayList<>();
        if (entries instanceof List<?> l) {
            for (Object e : l) {
                if (e instanceof byte[] id) {
                    out.add(id);
                } else if (e instanceof List<?> entry && !entry.isEmpty() && entry.get(0) instanceof byte[] id) {
                    out.add(id);
                }
            }
        }
        return out;
    }

    /** XCLAIM .. FORCE JUSTID of each ID as it pends now: its consumer, delivery time and count. */
    private List<byte[][]> claimed(byte[] key, byte[] group, List<byte[]> ids) {
        List<byte[][]> out = new ArrayList<>();
        for (byte[] id : ids) {
            Object p = query("XPENDING", key, group, id, id, "1");
            if (p instanceof List<?> l && !l.isEmpty() && l.get(0) instanceof List<?> e && e.size() >= 4) {
                long idle = number(e.get(2));
                out.add(words("XCLAIM", key, group, e.get(1), "0", id, "TIME", Long.toString(now - idle),
                        "RETRYCOUNT", e.get(3), "FORCE", "JUSTID"));
            }
        }
        return out;
    }

    /** XGROUP SETID key group last-delivered-id ENTRIESREAD n, as the group is now. */
    private byte[][] lastId(byte[] key, byte[] group) {
        if (!(query("XINFO", "GROUPS", key) instanceof List<?> groups)) {
            return null;
        }
        for (Object g : groups) {
            if (g instanceof List<?> fields) {
                Object name = field(fields, "name");
                if (name instanceof byte[] n && Arrays.equals(n, group)) {
                    Object last = field(fields, "last-delivered-id");
                    Object read = field(fields, "entries-read");
                    return read == null ? words("XGROUP", "SETID", key, group, last)
                            : words("XGROUP", "SETID", key, group, last, "ENTRIESREAD", read);
                }
            }
        }
        return null;
    }

    private static Object field(List<?> fields, String name) {
        for (int i = 0; i + 1 < fields.size(); i += 2) {
            if (fields.get(i) instanceof byte[] f && Args.is(f, name.toUpperCase(java.util.Locale.ROOT))) {
                return fields.get(i + 1);
            }
        }
        return null;
    }

    /** MIGRATE without COPY sends DEL of the keys it moved, as Redis does. */
    private static List<byte[][]> migrated(byte[][] a) {
        List<Object> keys = new ArrayList<>(List.of("DEL"));
        boolean copy = false;
        for (int i = 6; i < a.length; i++) {
            if (Args.is(a[i], "COPY")) {
                copy = true;
            } else if (Args.is(a[i], "KEYS")) {
                keys.addAll(Arrays.asList(a).subList(i + 1, a.length));
                break;
            } else if (Args.is(a[i], "AUTH")) {
                i++;
            } else if (Args.is(a[i], "AUTH2")) {
                i += 2;
            }
        }
        if (a[3].length > 0) {
            keys.add(a[3]);
        }
        return copy || keys.size() == 1 ? List.of() : one(words(keys.toArray()));
    }

    /** Runs a read on the command's database as the command left it, bypassing counts, and reads its reply. */
    private Object query(Object... words) {
        byte[][] args = words(words);
        CommandSpec spec = table.find(args[0]);
        Client inner = new Client(0, "replication", 0, true);
        inner.db = db;
        return RespValues.read(Reply.capture(2, r -> spec.handler().run(inner, args, r)));
    }

    private static long number(Object v) {
        return v instanceof byte[] b ? Long.parseLong(new String(b, java.nio.charset.StandardCharsets.US_ASCII)) : -2;
    }

    private static List<byte[][]> one(byte[][] op) {
        return java.util.Collections.singletonList(op);
    }

    /** @return the arguments, strings as their bytes, lists spread out */
    private static byte[][] words(Object... parts) {
        List<byte[]> out = new ArrayList<>();
        for (Object p : parts) {
            if (p instanceof List<?> l) {
                for (Object e : l) {
                    out.add((byte[]) e);
                }
            } else {
                out.add(p instanceof byte[] b ? b : Args.bytes(String.valueOf(p)));
            }
        }
        return out.toArray(new byte[0][]);
    }
}
