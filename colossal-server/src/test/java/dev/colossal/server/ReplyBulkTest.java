package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Bulk strings of every length around the short path's bounds, framed as RESP has them. */
class ReplyBulkTest {

    private static byte[] payload(int n) {
        byte[] b = new byte[n + 6];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) ('a' + i % 26);
        }
        return b;
    }

    @Test
    void framesEveryLengthFromNothingToPastTheShortPath() {
        for (int n = 0; n <= 1200; n++) {
            byte[] b = payload(n);
            int len = n;
            ByteArrayOutputStream want = new ByteArrayOutputStream();
            want.writeBytes("+x\r\n".getBytes(StandardCharsets.US_ASCII));
            for (int k = 0; k < 3; k++) {
                want.writeBytes(("$" + len + "\r\n").getBytes(StandardCharsets.US_ASCII));
                want.write(b, 3, len);
                want.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            // many of them, so that the buffer grows in the middle of one
            byte[] got = Reply.capture(2, r -> {
                r.simple("x");
                for (int k = 0; k < 3; k++) {
                    r.bulk(b, 3, len);
                }
            });
            assertEquals(new String(want.toByteArray(), StandardCharsets.ISO_8859_1),
                    new String(got, StandardCharsets.ISO_8859_1), "length " + n);
        }
    }
}
