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

    /** A batch of thousands, past its stage many times over, mixing short and long elements. */
    @Test
    void aBatchKeepsTheOrderOfShortAndLongElements() {
        ByteArrayOutputStream want = new ByteArrayOutputStream();
        byte[] got = Reply.capture(3, r -> {
            try (Reply.Batch batch = r.batch()) {
                for (int i = 0; i < 5000; i++) {
                    byte[] e = payload(i % 7 == 0 ? 150 + i % 300 : i % 60);
                    int len = e.length - 6;
                    want.writeBytes(("$" + len + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    want.write(e, 0, len);
                    want.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
                    batch.accept(e, 0, len);
                }
            }
            r.simple("end");
        });
        want.writeBytes("+end\r\n".getBytes(StandardCharsets.US_ASCII));
        assertEquals(new String(want.toByteArray(), StandardCharsets.ISO_8859_1), new String(got, StandardCharsets.ISO_8859_1));
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
            byte[] batched = Reply.capture(2, r -> {
                r.simple("x");
                try (Reply.Batch batch = r.batch()) {
                    for (int k = 0; k < 3; k++) {
                        batch.accept(b, 3, len);
                    }
                }
            });
            assertEquals(new String(want.toByteArray(), StandardCharsets.ISO_8859_1),
                    new String(batched, StandardCharsets.ISO_8859_1), "batched, length " + n);
        }
    }

    /** Scores and RESP3 pairs inside a batch read as the unbatched writes give them. */
    @Test
    void aBatchWritesScoresAndPairsAsTheReplyDoes() {
        double[] scores = {0, -0.0, 1, -3, 2.5, 1e-7, 123456789.125, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Math.PI};
        for (int protocol = 2; protocol <= 3; protocol++) {
            boolean pairs = protocol == 3;
            byte[] want = Reply.capture(protocol, r -> {
                for (int i = 0; i < scores.length; i++) {
                    if (pairs) {
                        r.array(2);
                    }
                    r.bulk(("m" + i).getBytes(StandardCharsets.US_ASCII));
                    ZScore.reply(r, scores[i]);
                }
            });
            byte[] got = Reply.capture(protocol, r -> {
                try (Reply.Batch b = r.batch()) {
                    for (int i = 0; i < scores.length; i++) {
                        if (pairs) {
                            b.pair();
                        }
                        b.bulk(("m" + i).getBytes(StandardCharsets.US_ASCII));
                        b.score(scores[i]);
                    }
                }
            });
            assertEquals(new String(want, StandardCharsets.US_ASCII), new String(got, StandardCharsets.US_ASCII), "RESP" + protocol);
        }
    }
}
