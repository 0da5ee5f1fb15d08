package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * WatchedKeys: a change marks the key's watchers in its database only; an expiry spares a watcher
 * that watched the key already gone (Redis 7.0's rule, which no script against a live server can
 * time); forgetting a client takes it off its keys.
 */
class WatchedKeysTest {

    private static byte[] key(String name) {
        return name.getBytes(StandardCharsets.UTF_8);
    }

    /** Watches {@code name} in {@code db} the way Transactions does: listed on the client and registered. */
    private static void watch(WatchedKeys w, Client c, int db, String name, boolean absent) {
        c.watchedKeys.add(key(name));
        c.watchedDbs.add(db);
        c.watchedValues.add(absent ? null : new byte[] {1});
        w.watch(c, db, key(name), absent);
    }

    @Test
    void aChangeMarksTheWatchersOfThatKeyInThatDatabaseOnly() {
        WatchedKeys w = new WatchedKeys();
        Client a = new Client(1, "127.0.0.1:1", 0, true);
        Client b = new Client(2, "127.0.0.1:2", 0, true);
        assertFalse(w.active());
        watch(w, a, 0, "k", false);
        watch(w, b, 1, "k", false);
        assertTrue(w.active());
        w.changed(0, key("other"), false);
        w.changed(2, key("k"), false);
        assertFalse(a.watchTouched || b.watchTouched);
        w.changed(0, key("k"), false);
        assertTrue(a.watchTouched);
        assertFalse(b.watchTouched);
    }

    @Test
    void anExpirySparesOnlyAWatcherThatSawTheKeyGone() {
        WatchedKeys w = new WatchedKeys();
        Client sawGone = new Client(1, "127.0.0.1:1", 0, true);
        Client sawLive = new Client(2, "127.0.0.1:2", 0, true);
        watch(w, sawGone, 0, "k", true);
        watch(w, sawLive, 0, "k", false);
        w.changed(0, key("k"), true);
        assertFalse(sawGone.watchTouched);
        assertTrue(sawLive.watchTouched);
        w.changed(0, key("k"), false);
        assertTrue(sawGone.watchTouched);
    }

    @Test
    void aForgottenClientIsNoLongerMarkedAndItsMarkIsCleared() {
        WatchedKeys w = new WatchedKeys();
        Client c = new Client(1, "127.0.0.1:1", 0, true);
        watch(w, c, 0, "k", false);
        w.changed(0, key("k"), false);
        assertTrue(c.watchTouched);
        w.forget(c);
        c.watchedKeys.clear();
        c.watchedDbs.clear();
        c.watchedValues.clear();
        assertFalse(c.watchTouched);
        assertFalse(w.active());
        w.changed(0, key("k"), false);
        assertFalse(c.watchTouched);
    }
}
