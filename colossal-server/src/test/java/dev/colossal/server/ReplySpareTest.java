package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A thread's spare reply buffer: one reply holds it at a time, another opens its own, close gives it back. */
class ReplySpareTest {

    private static String text(Reply r) {
        return new String(r.segment().asSlice(0, r.len).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII);
    }

    @Test
    void twoRepliesOnOneThreadKeepTheirOwnBytes() {
        Reply first = new Reply();
        Reply second = new Reply();
        first.openSpare();
        second.openSpare(); // the spare is held: a buffer of its own
        assertNotEquals(first.segment().address(), second.segment().address());
        first.simple("one");
        second.simple("two");
        first.bulk("x".repeat(1000)); // past the spare's 256 bytes: grown elsewhere, then back
        assertEquals("+two\r\n", text(second));
        assertTrue(text(first).startsWith("+one\r\n$1000\r\nxxx"), text(first));
        first.reset(256);
        first.simple("again");
        assertEquals("+again\r\n", text(first));
        long spare = first.segment().address();
        first.close();
        second.close();
        Reply third = new Reply();
        third.openSpare();
        assertEquals(spare, third.segment().address(), "given back on close");
        third.integer(42);
        assertArrayEquals(":42\r\n".getBytes(StandardCharsets.US_ASCII), third.segment().asSlice(0, third.len).toArray(ValueLayout.JAVA_BYTE));
        third.close();
    }

    @Test
    void eachThreadHasItsOwn() throws Exception {
        Reply mine = new Reply();
        mine.openSpare();
        long[] theirs = new long[1];
        Thread t = Thread.ofPlatform().start(() -> {
            Reply r = new Reply();
            r.openSpare();
            theirs[0] = r.segment().address();
            r.close();
        });
        t.join();
        assertNotEquals(mine.segment().address(), theirs[0]);
        mine.close();
    }
}
