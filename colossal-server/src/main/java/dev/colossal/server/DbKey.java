package dev.colossal.server;

import java.util.Arrays;

/** A key in a numbered database, compared by its bytes: what blocked clients wait on and clients WATCH. */
record DbKey(int db, byte[] key) {
    @Override
    public boolean equals(Object o) {
        return o instanceof DbKey k && k.db == db && Arrays.equals(k.key, key);
    }

    @Override
    public int hashCode() {
        return 31 * db + Arrays.hashCode(key);
    }

    @Override
    public String toString() {
        return db + ":" + new String(key, java.nio.charset.StandardCharsets.ISO_8859_1);
    }
}
