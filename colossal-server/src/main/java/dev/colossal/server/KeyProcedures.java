package dev.colossal.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The commands whose keys Redis 7.0 finds with a procedure of their own where key specs do not
 * do: a count of keys that is not a plain number, an option that can stand anywhere (SORT's
 * STORE), a stream list of odd length, or flags that depend on the arguments (SET's GET,
 * BITFIELD's writes). Each answers what Redis's would, flags included (none where Redis gives none).
 */
final class KeyProcedures {

    /** Finds a command's keys from its arguments (name first). */
    @FunctionalInterface
    interface Procedure {
        List<KeyFinder.Found> keys(byte[][] args);
    }

    private static final Map<String, Procedure> BY_NAME = Map.ofEntries(
            Map.entry("zunionstore", a -> counted(a, 1, 2, 3)),
            Map.entry("zinterstore", a -> counted(a, 1, 2, 3)),
            Map.entry("zdiffstore", a -> counted(a, 1, 2, 3)),
            Map.entry("zunion", a -> counted(a, 0, 1, 2)),
            Map.entry("zinter", a -> counted(a, 0, 1, 2)),
            Map.entry("zdiff", a -> counted(a, 0, 1, 2)),
            Map.entry("zintercard", a -> counted(a, 0, 1, 2)),
            Map.entry("sintercard", a -> counted(a, 0, 1, 2)),
            Map.entry("lmpop", a -> counted(a, 0, 1, 2)),
            Map.entry("zmpop", a -> counted(a, 0, 1, 2)),
            Map.entry("blmpop", a -> counted(a, 0, 2, 3)),
            Map.entry("bzmpop", a -> counted(a, 0, 2, 3)),
            Map.entry("eval", a -> counted(a, 0, 2, 3)),
            Map.entry("evalsha", a -> counted(a, 0, 2, 3)),
            Map.entry("eval_ro", a -> counted(a, 0, 2, 3)),
            Map.entry("evalsha_ro", a -> counted(a, 0, 2, 3)),
            Map.entry("fcall", a -> counted(a, 0, 2, 3)),
            Map.entry("fcall_ro", a -> counted(a, 0, 2, 3)),
            Map.entry("sort", KeyProcedures::sort),
            Map.entry("sort_ro", a -> List.of(new KeyFinder.Found(1, KeySpec.RO | KeySpec.ACCESS))),
            Map.entry("georadius", KeyProcedures::georadius),
            Map.entry("georadiusbymember", KeyProcedures::georadius),
            Map.entry("xread", KeyProcedures::streams),
            Map.entry("xreadgroup", KeyProcedures::streams),
            Map.entry("migrate", KeyProcedures::migrate),
            Map.entry("set", KeyProcedures::set),
            Map.entry("bitfield", KeyProcedures::bitfield));

    private KeyProcedures() {
    }

    /** @return the procedure of the command or subcommand {@code name}, or null if it has none */
    static Procedure of(String name) {
        return BY_NAME.get(name);
    }

    /**
     * Keys counted by an argument read as C's {@code atoi} reads it (leading blanks, a sign, the
     * digits up to the first other byte): none if the count is below 1 or more than the arguments
     * left. The destination, if any, comes after the sources, without flags as all of these.
     */
    private static List<KeyFinder.Found> counted(byte[][] a, int store, int countAt, int first) {
        long n = Args.atoi(a[countAt]);
        if (n < 1 || n > a.length - first) {
            return List.of();
        }
        List<KeyFinder.Found> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new KeyFinder.Found(first + i, 0));
        }
        if (store > 0) {
            out.add(new KeyFinder.Found(store, 0));
        }
        return out;
    }

    /** SORT's key, and the destination of its last STORE (LIMIT's, GET's and BY's values skipped). */
    private static List<KeyFinder.Found> sort(byte[][] a) {
        int store = 0;
        for (int i = 2; i < a.length; i++) {
            if (Args.is(a[i], "LIMIT")) {
                i += 2;
            } else if (Args.is(a[i], "GET") || Args.is(a[i], "BY")) {
                i++;
            } else if (Args.is(a[i], "STORE") && i + 1 < a.length) {
                store = i + 1;
            }
        }
        return readAndStore(store);
    }

    /** GEORADIUS's key and the destination of its last STORE or STOREDIST. */
    private static List<KeyFinder.Found> georadius(byte[][] a) {
        int store = 0;
        for (int i = 5; i < a.length; i++) {
            if ((Args.is(a[i], "STORE") || Args.is(a[i], "STOREDIST")) && i + 1 < a.length) {
                store = ++i;
            }
        }
        return readAndStore(store);
    }

    /** @return the key read (argument 1) and, if {@code store} is past 0, the destination written there */
    private static List<KeyFinder.Found> readAndStore(int store) {
        KeyFinder.Found read = new KeyFinder.Found(1, KeySpec.RO | KeySpec.ACCESS);
        return store > 0 ? List.of(read, new KeyFinder.Found(store, KeySpec.OW | KeySpec.UPDATE)) : List.of(read);
    }

    /** XREAD's and XREADGROUP's streams: the first half of what follows STREAMS, none if that is odd or empty. */
    private static List<KeyFinder.Found> streams(byte[][] a) {
        int at = -1;
        for (int i = 1; i < a.length; i++) {
            if (Args.is(a[i], "BLOCK") || Args.is(a[i], "COUNT")) {
                i++;
            } else if (Args.is(a[i], "GROUP")) {
                i += 2;
            } else if (Args.is(a[i], "STREAMS")) {
                at = i;
                break;
            } else if (!Args.is(a[i], "NOACK")) {
                break;
            }
        }
        int n = a.length - at - 1;
        if (at < 0 || n == 0 || n % 2 != 0) {
            return List.of();
        }
        List<KeyFinder.Found> out = new ArrayList<>();
        for (int i = at + 1; i < at + 1 + n / 2; i++) {
            out.add(new KeyFinder.Found(i, 0));
        }
        return out;
    }

    /**
     * MIGRATE's key, or with KEYS (and an empty key) the keys after it; options before KEYS are
     * skipped with their values, anything else taken for an option without one.
     */
    private static List<KeyFinder.Found> migrate(byte[][] a) {
        int first = 3;
        int n = 1;
        for (int i = 6; i < a.length; i++) {
            if (Args.is(a[i], "KEYS")) {
                if (a[3].length > 0) {
                    return List.of();
                }
                first = i + 1;
                n = a.length - first;
                break;
            }
            i += Args.is(a[i], "AUTH") ? 1 : Args.is(a[i], "AUTH2") ? 2 : 0;
        }
        List<KeyFinder.Found> out = new ArrayList<>();
        for (int i = first; i < first + n; i++) {
            out.add(new KeyFinder.Found(i, KeySpec.RW | KeySpec.ACCESS | KeySpec.DELETE));
        }
        return out;
    }

    /** SET reads its key only with GET. */
    private static List<KeyFinder.Found> set(byte[][] a) {
        for (int i = 3; i < a.length; i++) {
            if (Args.is(a[i], "GET")) {
                return List.of(new KeyFinder.Found(1, KeySpec.RW | KeySpec.ACCESS | KeySpec.UPDATE));
            }
        }
        return List.of(new KeyFinder.Found(1, KeySpec.OW | KeySpec.UPDATE));
    }

    /** BITFIELD only reads its key unless a SET or INCRBY (or something it cannot read) follows. */
    private static List<KeyFinder.Found> bitfield(byte[][] a) {
        boolean readOnly = true;
        for (int i = 2; i < a.length; i++) {
            int left = a.length - i - 1;
            if (Args.is(a[i], "GET") && left >= 2) {
                i += 2;
            } else if (Args.is(a[i], "OVERFLOW") && left >= 1) {
                i += 1;
            } else {
                readOnly = false; // a write, or a syntax error, which is taken as one to be safe
                break;
            }
        }
        return List.of(new KeyFinder.Found(1, readOnly ? KeySpec.RO | KeySpec.ACCESS
                : KeySpec.RW | KeySpec.ACCESS | KeySpec.UPDATE));
    }
}
