package dev.colossal.server;

import java.util.List;

/**
 * LOLWUT [VERSION v]: Redis draws generative art and signs it with its version; Colossal draws its
 * own, a Sierpinski triangle of map slots (a slot is taken where its row and column share no bit),
 * and signs it with both versions, Redis's last, so a tool reading "Redis ver. X" at the end finds it.
 */
final class Lolwut {

    private static final int ROWS = 16;
    private static final int COLUMNS = 32;
    static final String SIGNATURE = "Colossal ver. " + ServerContext.COLOSSAL_VERSION + ", Redis ver. "
            + ServerContext.REDIS_VERSION + "\n";

    void register(CommandTable t) {
        t.add("lolwut", -1, List.of("readonly", "fast"), 0, 0, 0, Lolwut::lolwut);
    }

    private static void lolwut(Client c, byte[][] a, Reply r) {
        if (a.length >= 3 && Args.is(a[1], "VERSION") && Args.toLong(a[2]).isEmpty()) {
            r.error(Errors.NOT_INTEGER);
            return;
        }
        r.verbatim(drawing());
    }

    /** @return the picture, its caption and signature */
    static String drawing() {
        StringBuilder sb = new StringBuilder();
        for (int row = 0; row < ROWS; row++) {
            for (int col = 0; col < COLUMNS; col++) {
                sb.append((row & col) == 0 ? '#' : '.');
            }
            sb.append('\n');
        }
        return sb.append("\nSlots taken where row and column share no bit. ").append(SIGNATURE).toString();
    }
}
