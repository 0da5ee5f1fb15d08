package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/** The locks of several keys: each stripe once, in one order whatever the keys' order, led by the multi-stripe lock. */
class KeyLocksTest {

    private static byte[] k(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void distinctStripesInOneOrder() {
        KeyLocks locks = new KeyLocks();
        assertEquals(0, locks.locks().length);
        Lock[] one = locks.locks(k("a"), k("a"), k("a"));
        assertEquals(1, one.length, "one key named thrice is one stripe, no multi-stripe lock");
        assertSame(locks.lock(k("a")), one[0]);
        byte[][] keys = new byte[40][];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = k("key:" + i % 20); // each twice
        }
        Lock[] forward = locks.locks(keys);
        byte[][] reversed = new byte[keys.length][];
        for (int i = 0; i < keys.length; i++) {
            reversed[i] = keys[keys.length - 1 - i];
        }
        assertArrayEquals(forward, locks.locks(reversed), "the same order whatever the keys' order");
        assertSame(locks.multiStripe(), forward[0]);
        java.util.Set<Lock> stripes = new java.util.HashSet<>();
        for (int i = 0; i < 20; i++) {
            stripes.add(locks.lock(k("key:" + i)));
        }
        assertEquals(stripes.size() + 1, forward.length, "each stripe once");
        assertEquals(stripes, new java.util.HashSet<>(java.util.Arrays.asList(forward).subList(1, forward.length)));
    }
}
