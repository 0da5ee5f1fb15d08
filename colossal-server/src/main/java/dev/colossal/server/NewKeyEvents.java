package dev.colossal.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Redis's {@code new} keyspace event (class {@code n}): a key a command added. Only while that
 * class is on, each write command's declared keys are looked up before it runs ({@link #before});
 * a key missing then is announced as new just before the first change the command tells of it, as
 * Redis announces a key when it adds it, before the command's own event ({@link #firing}), or, if
 * the command told none and the key exists now, after the command ({@link #after}). With the class
 * off (the default) this costs nothing: nothing is looked up.
 *
 * <p>Redis removes and adds again the destination of RENAME, COPY and RESTORE when it is there, so
 * that is new to it either way; RENAME's comes before its {@code rename_from}, the first change it
 * tells; a COPY to another database adds its key there, and MOVE adds its key in the other
 * database before its {@code move_from}.
 */
final class NewKeyEvents {

    /** A key a command may add. */
    private record Candidate(int db, byte[] key, boolean absent, boolean first) {}

    /** The running command's candidates, on its thread; null when no command looks. */
    private static final ThreadLocal<List<Candidate>> RUNNING = new ThreadLocal<>();

    private NewKeyEvents() {}

    /**
     * Before a write command that declares keys, with class {@code n} on: notes the keys it may add.
     *
     * @param stores each database's keys, by number; null for a number beyond the last
     * @return what {@link #after} takes, or null if the command can add none
     */
    static Object before(CommandSpec spec, byte[][] args, int db, IntFunction<KeyValueStore> stores) {
        RUNNING.remove();   // a command that ended in an Error may have left its own
        List<Candidate> found = new ArrayList<>();
        String name = spec.name();
        byte[] replaced = name.equals("rename") || name.equals("renamenx") || name.equals("copy") || name.equals("restore")
                ? args[name.equals("restore") ? 1 : 2] : null;
        int copyDb = name.equals("copy") ? copyDb(args, db) : db;
        spec.forEachKey(args, k -> {
            int at = k == replaced ? copyDb : db;
            KeyValueStore store = at < 0 ? null : stores.apply(at);
            if (store == null) {
                return;   // no such database: the command fails
            }
            boolean absent = !store.exists(k);
            if ((absent || k == replaced) && found.stream().noneMatch(c -> c.db == at && Arrays.equals(c.key, k))) {
                found.add(new Candidate(at, k, absent, k == replaced && !name.equals("copy") && !name.equals("restore")));
            }
        });
        if (name.equals("xgroup") && args.length > 3 && Args.is(args[1], "CREATE")) {
            // a container command with no key of its own: CREATE ... MKSTREAM adds its stream
            KeyValueStore store = stores.apply(db);
            if (store != null && !store.exists(args[2])) {
                found.add(new Candidate(db, args[2], true, false));
            }
        }
        if (name.equals("move") && args.length == 3) {
            // its key is added in the other database first, before its move_from
            int to = dbNumber(args[2]);
            KeyValueStore target = to < 0 || to == db ? null : stores.apply(to);
            if (target != null && !target.exists(args[1])) {
                found.add(new Candidate(to, args[1], true, true));
            }
        }
        if (found.isEmpty()) {
            return null;
        }
        RUNNING.set(found);
        return found;
    }

    /** @return the database COPY writes to: its DB option's, else {@code db}; -1 if the option is no database number */
    private static int copyDb(byte[][] args, int db) {
        for (int i = 3; i + 1 < args.length; i++) {
            if (Args.is(args[i], "DB")) {
                return dbNumber(args[i + 1]);
            }
        }
        return db;
    }

    /** @return {@code arg} as a database number, -1 if it is none */
    private static int dbNumber(byte[] arg) {
        java.util.OptionalLong n = Args.toLong(arg);
        return n.isPresent() && n.getAsLong() >= 0 && n.getAsLong() < Integer.MAX_VALUE ? (int) n.getAsLong() : -1;
    }

    /**
     * A change of {@code key} of {@code db} is about to be told (published or not; {@code stores}:
     * each database's keys, by number): if the running
     * command may add it, it is announced as new first, once; RENAME's destination is announced at
     * the first change the command tells, whichever key.
     */
    static void firing(int db, byte[] key, IntFunction<KeyValueStore> stores, java.util.function.BiConsumer<Integer, byte[]> announce) {
        List<Candidate> found = RUNNING.get();
        if (found == null) {
            return;
        }
        for (int i = 0; i < found.size(); i++) {
            Candidate c = found.get(i);
            if (c.first || c.db == db && Arrays.equals(c.key, key)) {
                // a key missing before was added, even if it went again (a deadline past); one that was
                // there was replaced only if it is there now (RESTORE REPLACE of a past deadline removes it)
                if (c.absent || stores.apply(c.db).exists(c.key)) {
                    found.remove(i--);
                    announce.accept(c.db, c.key);
                }
            }
        }
    }

    /** After the command {@link #before} looked at: announces the keys it added without telling a change of them. */
    @SuppressWarnings("unchecked")
    static void after(Object looked, IntFunction<KeyValueStore> stores, java.util.function.BiConsumer<Integer, byte[]> announce) {
        if (looked == null) {
            return;
        }
        RUNNING.remove();
        for (Candidate c : (List<Candidate>) looked) {
            if (c.absent && stores.apply(c.db).exists(c.key)) {
                announce.accept(c.db, c.key);
            }
        }
    }
}
