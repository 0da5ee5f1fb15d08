package dev.colossal.server;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which clients WATCH which keys, so that any change to one marks its watchers touched, as Redis
 * does: their EXEC then gives up even where the key's value ends as it was (written back unchanged,
 * or set with a short TTL that has run out), which comparing values alone cannot see. Changes are
 * learned where keyspace events are fired ({@link KeyspaceEvents#fire}), which every write goes
 * through. With no watcher a write pays one volatile read.
 */
final class WatchedKeys {

    /**
     * By key, its watchers, each with whether the key was absent (or expired) when it watched: a
     * watcher that saw it gone is not touched by its expiry, as Redis 7.0 spares a key already
     * expired at WATCH that expiry then removes. Each set is only touched inside the map's compute
     * methods, which hold the key's bin.
     */
    private final ConcurrentHashMap<DbKey, Map<Client, Boolean>> byKey = new ConcurrentHashMap<>();
    /** (client, key) pairs registered now: {@link #changed} does nothing while it is 0, which it nearly always is. */
    private final AtomicInteger watching = new AtomicInteger();

    /** @return whether a client watches some key: then {@link #changed} wants to hear of every change */
    boolean active() {
        return watching.get() > 0;
    }

    /** Registers {@code c} as watching {@code key} of database {@code db}, which it found absent or not. */
    void watch(Client c, int db, byte[] key, boolean absent) {
        byKey.compute(new DbKey(db, key), (k, watchers) -> {
            Map<Client, Boolean> w = watchers == null ? new HashMap<>() : watchers;
            if (w.putIfAbsent(c, absent) == null) {
                watching.incrementAndGet();
            }
            return w;
        });
    }

    /** Takes {@code c} off every key it watches (its lists still name them) and clears its mark. */
    void forget(Client c) {
        for (int i = 0; i < c.watchedKeys.size(); i++) {
            byKey.computeIfPresent(new DbKey(c.watchedDbs.get(i), c.watchedKeys.get(i)), (k, watchers) -> {
                if (watchers.remove(c) != null) {
                    watching.decrementAndGet();
                }
                return watchers.isEmpty() ? null : watchers;
            });
        }
        c.watchTouched = false;
    }

    /** Marks the watchers of {@code key} of database {@code db} touched; an expiry spares those that saw it gone. */
    void changed(int db, byte[] key, boolean expiry) {
        byKey.computeIfPresent(new DbKey(db, key), (k, watchers) -> {
            watchers.forEach((c, absent) -> {
                if (!(expiry && absent)) {
                    c.watchTouched = true;
                }
            });
            return watchers;
        });
    }
}
