package dev.colossal.server;

import java.nio.charset.StandardCharsets;

/**
 * Redis's keyspace notifications: after a command changes a key, a message on
 * {@code __keyspace@<db>__:<key>} naming the event and one on {@code __keyevent@<db>__:<event>}
 * naming the key, for the classes {@code notify-keyspace-events} turns on (CONFIG SET, as in Redis).
 * Commands call {@link #fire} after each change with the event Redis 7.0 names for it.
 *
 * <p>Off by default, as in Redis, and then a write pays one volatile read ({@link #on}). New-key
 * events ({@code n}) cost a lookup of each key a write names, and only while that class is on
 * ({@link NewKeyEvents}). Not published: key-miss events ({@code m}), which would put a lookup on
 * every read; CONFIG SET refuses {@code m} saying so.
 */
final class KeyspaceEvents {

    static final int GENERIC = 1;
    static final int STRING = 1 << 1;
    static final int LIST = 1 << 2;
    static final int SET = 1 << 3;
    static final int HASH = 1 << 4;
    static final int ZSET = 1 << 5;
    static final int EXPIRED = 1 << 6;
    static final int EVICTED = 1 << 7;
    static final int STREAM = 1 << 8;
    static final int MODULE = 1 << 9;
    static final int KEY_MISS = 1 << 10;
    static final int NEW = 1 << 11;
    static final int KEYSPACE = 1 << 12;
    static final int KEYEVENT = 1 << 13;
    /** Redis's {@code A}: every class but key-miss and new-key. */
    static final int ALL = GENERIC | STRING | LIST | SET | HASH | ZSET | EXPIRED | EVICTED | STREAM | MODULE;

    /** The class characters in the order Redis's CONFIG GET writes them, with their bits. */
    private static final String CLASS_CHARS = "g$lshzxetdn";
    private static final int[] CLASS_BITS = {GENERIC, STRING, LIST, SET, HASH, ZSET, EXPIRED, EVICTED, STREAM, MODULE, NEW};

    private final PubSub pubsub;
    private final Databases dbs;
    /** Told of every change, whatever the flags: client-side caching learns of changes here. */
    private final Tracking tracking;
    private volatile int flags;
    /** Counts changes, which tell a write that changed something (and is sent to replicas) from one that did not. */
    private final Replicas replicas;

    /** Told of every change: a blocked XREADGROUP ends once its stream goes, whatever removed or replaced it. */
    private final KeyWaits waits;

    /** Told of every change: a WATCHed key's change makes its watchers' EXEC give up. */
    private final WatchedKeys watches;

    KeyspaceEvents(PubSub pubsub, Databases dbs, Tracking tracking, Replicas replicas, KeyWaits waits, WatchedKeys watches) {
        this.pubsub = pubsub;
        this.dbs = dbs;
        this.tracking = tracking;
        this.replicas = replicas;
        this.waits = waits;
        this.watches = watches;
    }

    /**
     * @param classes a {@code notify-keyspace-events} value, e.g. {@code KEA}
     * @return its flags, or -1 if a character is none of Redis's classes
     */
    static int parse(String classes) {
        int f = 0;
        for (int i = 0; i < classes.length(); i++) {
            char ch = classes.charAt(i);
            int at = CLASS_CHARS.indexOf(ch);
            if (at >= 0) {
                f |= CLASS_BITS[at];
            } else {
                switch (ch) {
                    case 'A' -> f |= ALL;
                    case 'K' -> f |= KEYSPACE;
                    case 'E' -> f |= KEYEVENT;
                    case 'm' -> f |= KEY_MISS;
                    default -> {
                        return -1;
                    }
                }
            }
        }
        return f;
    }

    /** @return {@code flags} as Redis 7.0's CONFIG GET writes them: {@code AKE}, {@code gxE}, ... */
    static String format(int flags) {
        StringBuilder s = new StringBuilder();
        if ((flags & ALL) == ALL) {
            s.append('A'); // and, as in Redis 7.0, the new-key class goes unsaid
        } else {
            for (int i = 0; i < CLASS_BITS.length; i++) {
                if ((flags & CLASS_BITS[i]) != 0) {
                    s.append(CLASS_CHARS.charAt(i));
                }
            }
        }
        if ((flags & KEYSPACE) != 0) {
            s.append('K');
        }
        if ((flags & KEYEVENT) != 0) {
            s.append('E');
        }
        if ((flags & KEY_MISS) != 0) {
            s.append('m');
        }
        return s.toString();
    }

    int flags() {
        return flags;
    }

    void setFlags(int flags) {
        this.flags = flags;
    }

    /** @return whether events of class {@code type} are published: checked before building one */
    boolean on(int type) {
        int f = flags;
        return (f & type) != 0 && (f & (KEYSPACE | KEYEVENT)) != 0;
    }

    /** @return whether {@link #fire} with class {@code type} does anything: a write that must copy its key to fire checks first */
    boolean wanted(int type) {
        return on(type) || tracking.active() || replicas.active() || waits.watchingGone() || watches.active();
    }

    /** Publishes {@code event} on {@code key} of the database {@code store} is, if class {@code type} is on. */
    void fire(int type, String event, KeyValueStore store, byte[] key) {
        if ((flags & NEW) != 0) {
            announceNew(dbs.indexOf(store), key);
        }
        replicas.changed();
        if (tracking.active()) {
            tracking.changed(key);
        }
        boolean watched = waits.watchingGone();
        boolean watchedByExec = watches.active();
        if (watched || watchedByExec || on(type)) {
            int db = dbs.indexOf(store);
            if (db >= 0) {
                if (watched) {
                    waits.changed(db, key);
                }
                if (watchedByExec) {
                    watches.changed(db, key, type == EXPIRED);
                }
                if (on(type)) {
                    publish(event, db, key);
                }
            }
        }
    }

    /** @return whether new-key events ({@code n}) are published: writes then look their keys up first */
    boolean newKeysOn() {
        return on(NEW);
    }

    /** Publishes {@code new} on {@code key} of {@code db}, as {@link NewKeyEvents} finds a key created. */
    void created(int db, byte[] key) {
        if (on(NEW)) {
            publish("new", db, key);
        }
    }

    /** Before an event on {@code key}: if the running command found it missing, it is announced new first. */
    private void announceNew(int db, byte[] key) {
        if ((flags & NEW) != 0 && db >= 0) {
            NewKeyEvents.firing(db, key, dbs::store, this::created);
        }
    }

    /** Publishes {@code event} on {@code key} of database {@code db}, if class {@code type} is on. */
    void fire(int type, String event, int db, byte[] key) {
        announceNew(db, key);
        replicas.changed();
        if (tracking.active()) {
            tracking.changed(key);
        }
        waits.changed(db, key);
        if (watches.active()) {
            watches.changed(db, key, type == EXPIRED);
        }
        if (on(type)) {
            publish(event, db, key);
        }
    }

    private void publish(String event, int db, byte[] key) {
        int f = flags;
        byte[] name = event.getBytes(StandardCharsets.US_ASCII);
        if ((f & KEYSPACE) != 0) {
            pubsub.publish(PubSub.Kind.CHANNEL, concat("__keyspace@" + db + "__:", key), name);
        }
        if ((f & KEYEVENT) != 0) {
            pubsub.publish(PubSub.Kind.CHANNEL, concat("__keyevent@" + db + "__:", name), key);
        }
    }

    private static byte[] concat(String head, byte[] tail) {
        byte[] h = head.getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[h.length + tail.length];
        System.arraycopy(h, 0, out, 0, h.length);
        System.arraycopy(tail, 0, out, h.length, tail.length);
        return out;
    }
}
