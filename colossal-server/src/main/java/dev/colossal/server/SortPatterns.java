package dev.colossal.server;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * SORT's BY and GET patterns as Redis reads them: {@code #} is the element itself; otherwise the
 * first {@code *} is replaced by the element to name a key, whose string value is the answer, or,
 * with {@code ->field} after the {@code *}, the field of the hash under that key. A pattern is read
 * as the C string Redis reads ({@code *}, {@code ->} and {@code #} looked for before any NUL byte);
 * a missing key, a key of another type or a pattern without {@code *} give nothing.
 */
final class SortPatterns {

    private final KeyValueStore db;
    private final Consumer<byte[]> beforeRead;

    /** @param beforeRead called with each key before it is read (SORT locks it there) */
    SortPatterns(KeyValueStore db, Consumer<byte[]> beforeRead) {
        this.db = db;
        this.beforeRead = beforeRead;
    }

    /** @return whether Redis sees a {@code *} in {@code pattern}: else BY means "do not sort" */
    static boolean hasStar(byte[] pattern) {
        return indexOf(pattern, (byte) '*', 0) >= 0;
    }

    /** @return the bytes before the first NUL: the length C's string functions see */
    static int cLength(byte[] a) {
        int n = 0;
        while (n < a.length && a[n] != 0) {
            n++;
        }
        return n;
    }

    private static int indexOf(byte[] a, byte b, int from) {
        int end = cLength(a);
        for (int i = from; i < end; i++) {
            if (a[i] == b) {
                return i;
            }
        }
        return -1;
    }

    /** @return what {@code pattern} gives for {@code element}, or null */
    byte[] find(byte[] pattern, byte[] element) {
        if (cLength(pattern) == 1 && pattern[0] == '#') {
            return element;
        }
        int star = indexOf(pattern, (byte) '*', 0);
        if (star < 0) {
            return null;
        }
        int arrow = -1;
        for (int i = indexOf(pattern, (byte) '-', star + 1); i >= 0; i = indexOf(pattern, (byte) '-', i + 1)) {
            if (i + 1 < cLength(pattern) && pattern[i + 1] == '>') {
                arrow = i;
                break;
            }
        }
        if (arrow >= 0 && arrow + 2 >= cLength(pattern)) {
            arrow = -1; // "->" with nothing after it is part of the key name
        }
        int keyEnd = arrow < 0 ? pattern.length : arrow;
        byte[] key = new byte[star + element.length + keyEnd - star - 1];
        System.arraycopy(pattern, 0, key, 0, star);
        System.arraycopy(element, 0, key, star, element.length);
        System.arraycopy(pattern, star + 1, key, star + element.length, keyEnd - star - 1);
        beforeRead.accept(key);
        KeyValueStore.Entry e = db.get(key);
        if (e == null) {
            return null;
        }
        if (arrow < 0) {
            return e.type() == StoredValue.STRING ? Arrays.copyOfRange(e.array(), e.offset(), e.offset() + e.length()) : null;
        }
        if (e.type() != StoredValue.HASH) {
            return null;
        }
        return HashCommands.find(db, key, e, Arrays.copyOfRange(pattern, arrow + 2, pattern.length));
    }
}
