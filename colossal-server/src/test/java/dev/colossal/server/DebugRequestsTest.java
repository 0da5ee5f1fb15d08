package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The debugger's commands read off the socket as they come, in pieces or together. */
class DebugRequestsTest {

    private static void add(DebugRequests r, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        r.add(b, b.length);
    }

    @Test
    void anArrayIsGivenOnceItIsWhole() throws Exception {
        DebugRequests r = new DebugRequests();
        String cmd = "*2\r\n$1\r\nb\r\n$2\r\n12\r\n";
        for (int i = 0; i < cmd.length() - 1; i++) {
            add(r, cmd.substring(i, i + 1));
            assertNull(r.next(), "after " + (i + 1) + " bytes");
        }
        add(r, cmd.substring(cmd.length() - 1));
        assertArrayEquals(new String[] {"b", "12"}, r.next());
        assertNull(r.next());
    }

    @Test
    void commandsThatCameTogetherAreGivenOneByOne() throws Exception {
        DebugRequests r = new DebugRequests();
        add(r, "*1\r\n$1\r\ns\r\nl 3  1\r\n*3\r\n$1\r\ne\r\n$6\r\nreturn\r\n$3\r\n1+1\r\n");
        assertArrayEquals(new String[] {"s"}, r.next());
        assertArrayEquals(new String[] {"l", "3", "1"}, r.next());
        assertArrayEquals(new String[] {"e", "return", "1+1"}, r.next());
        assertNull(r.next());
    }

    @Test
    void aLongArgumentGrowsTheBuffer() throws Exception {
        DebugRequests r = new DebugRequests();
        String big = "x".repeat(10_000);
        add(r, "*2\r\n$1\r\ne\r\n$10000\r\n" + big + "\r\n");
        assertArrayEquals(new String[] {"e", big}, r.next());
    }

    @Test
    void garbageIsAProtocolError() {
        DebugRequests r = new DebugRequests();
        add(r, "*1\r\n:1\r\n");
        assertThrows(ProtocolException.class, r::next);
        DebugRequests negative = new DebugRequests();
        add(negative, "*-5\r\n");
        assertThrows(ProtocolException.class, negative::next);
    }
}
