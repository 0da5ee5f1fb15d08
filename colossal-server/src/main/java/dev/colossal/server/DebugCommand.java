package dev.colossal.server;

import dev.colossal.rdb.DumpPayload;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * DEBUG, which test suites and tools run against a server started with {@code
 * enable-debug-command yes} or {@code local} ({@link DebugAccess}; refused with Redis's text
 * otherwise). The subcommands that mean something here answer as Redis 7.0 answers them: HELP,
 * ERROR, SLEEP (no client is answered meanwhile), OBJECT, PROTOCOL ({@link DebugProtocol}), DIGEST
 * and DIGEST-VALUE ({@link DatasetDigest}), RELOAD (the maps forced to the device, as SAVE: nothing is reloaded, as the
 * files are the data), SET-ACTIVE-EXPIRE ({@link ExpirySweeper#active}), CHANGE-REPL-ID, POPULATE,
 * LOG, STRINGMATCH-TEST ({@link Glob} against random input), QUICKLIST-PACKED-THRESHOLD (checked;
 * lists here have no plain nodes) and CLIENT-EVICTION (maxmemory-clients is always off). The rest
 * of Redis's list crash, restart or show C structures this server does not have: they are answered
 * as a subcommand Redis does not know.
 */
final class DebugCommand {

    /** The help Redis 7.0.15 answers, line for line: clients show it, and it lists what exists there. */
    private static final List<String> HELP = HelpText.load("debug-help.txt");
    /** Redis's bound on QUICKLIST-PACKED-THRESHOLD: 4 GiB less 1 MiB. */
    private static final long MAX_PACKED_THRESHOLD = (1L << 32) - (1L << 20);
    /** What C's {@code strtod} and {@code atoi} read of a text: its leading number. */
    private static final java.util.regex.Pattern LEADING_DOUBLE =
            java.util.regex.Pattern.compile("^\\s*[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");
    private static final java.util.regex.Pattern LEADING_INTEGER = java.util.regex.Pattern.compile("^\\s*[+-]?\\d+");
    /** Redis's LRU clock is the Unix time in seconds, cut to 24 bits. */
    private static final long LRU_CLOCK_MASK = (1L << 24) - 1;

    private final ServerContext ctx;
    private final DumpCommands dumps;
    private final DatasetDigest digest;
    /** The table this is registered in, whose count of writes a RELOAD's save notes. */
    private CommandTable table;

    DebugCommand(ServerContext ctx, DumpCommands dumps) {
        this.ctx = ctx;
        this.dumps = dumps;
        this.digest = new DatasetDigest(ctx, dumps);
    }

    void register(CommandTable t) {
        table = t;
        t.add("debug", -2, List.of("admin", "noscript", "loading", "stale"), 0, 0, 0, this::debug);
    }

    /** Runs for the clients {@code enable-debug-command} lets in: {@link CommandTable#execute} refuses the others. */
    private void debug(Client c, byte[][] a, Reply r) {
        String sub = Args.lower(a[1]);
        switch (sub) {
            case "help" -> {
                if (arity(a, r, 2, 2)) {
                    r.array(HELP.size());
                    HELP.forEach(r::simple);
                }
            }
            case "error" -> {
                if (arity(a, r, 3, 3)) {
                    r.error(Errors.text(a[2]));
                }
            }
            case "sleep" -> {
                if (arity(a, r, 3, 3)) {
                    sleep(c, a[2], r);
                }
            }
            case "object" -> {
                if (arity(a, r, 3, 3)) {
                    object(c, a[2], r);
                }
            }
            case "protocol" -> {
                if (arity(a, r, 3, 3)) {
                    DebugProtocol.reply(a[2], r);
                }
            }
            case "digest" -> {
                if (arity(a, r, 2, 2)) {
                    r.simple(digest.dataset());
                }
            }
            case "digest-value" -> {
                r.array(a.length - 2);
                for (int i = 2; i < a.length; i++) {
                    r.simple(digest.value(ctx.db(c), a[i]));
                }
            }
            case "reload" -> reload(a, r);
            case "set-active-expire" -> {
                if (arity(a, r, 3, 3)) {
                    ctx.sweeper.active(atoi(a[2]) != 0);
                    r.ok();
                }
            }
            case "change-repl-id" -> {
                if (arity(a, r, 2, 2)) {
                    ctx.replicas.changeId();
                    r.ok();
                }
            }
            case "populate" -> {
                if (arity(a, r, 3, 5)) {
                    populate(c, a, r);
                }
            }
            case "log" -> {
                if (arity(a, r, 3, 3)) {
                    System.err.println("colossal: DEBUG LOG: " + Errors.text(a[2]));
                    r.ok();
                }
            }
            case "stringmatch-test" -> {
                if (arity(a, r, 2, 2)) {
                    globFuzz();
                    r.simple("Apparently Redis did not crash: test passed");
                }
            }
            case "quicklist-packed-threshold" -> {
                if (arity(a, r, 3, 3)) {
                    packedThreshold(a[2], r);
                }
            }
            case "client-eviction" -> {
                if (arity(a, r, 2, 2)) {
                    r.error("ERR maxmemory-clients is disabled.");
                }
            }
            default -> r.error(Errors.subcommandSyntax(a[1], "DEBUG"));
        }
    }

    /** @return whether {@code a} has {@code min..max} words; if not, Redis's error is answered */
    private static boolean arity(byte[][] a, Reply r, int min, int max) {
        if (a.length >= min && a.length <= max) {
            return true;
        }
        r.error(Errors.subcommandSyntax(a[1], "DEBUG"));
        return false;
    }

    /**
     * SLEEP seconds: the reply comes that long after, read as C's {@code strtod} reads it (a text
     * that is no number is 0). Redis's one thread sleeps, so no other client is answered meanwhile:
     * here this loop's thread sleeps and {@link ClientPause#sleep} holds every other connection's
     * requests (new ones are accepted, as the kernel accepts them for Redis, and held too).
     */
    private void sleep(Client c, byte[] seconds, Reply r) {
        long nanos = (long) Math.min(strtod(Errors.text(seconds)) * 1e9, Long.MAX_VALUE);
        try {
            ctx.pause.sleep(c);
            try {
                TimeUnit.NANOSECONDS.sleep(nanos);
            } finally {
                ctx.pause.wake();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        r.ok();
    }

    /**
     * OBJECT key: Redis's line. The encoding, refcount and serialized length (the value's RDB form,
     * strings uncompressed) are what a redis-server holding the value says; the address is none
     * (this server has no object headers), and lru is the LRU clock of the key's last use by the
     * {@link AccessClock}'s estimate. A list adds its quicklist's figures as Redis 7.0 would build
     * it (list-max-listpack-size -2, no compression).
     */
    private void object(Client c, byte[] key, Reply r) {
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = store.raw(key);
        byte[] payload = e == null ? null : dumps.payload(store, key);
        if (payload == null) {
            r.error(Errors.NO_SUCH_KEY);
            return;
        }
        long idle = ctx.access.countsUses() ? 0 : ctx.access.idleSeconds(c.db, key, System.nanoTime());
        long lru = (ctx.now() / 1000 - idle) & LRU_CLOCK_MASK;
        StringBuilder line = new StringBuilder("Value at:0x0 refcount:").append(KeyCommands.refcount(ctx, e))
                .append(" encoding:").append(KeyCommands.encoding(e))
                .append(" serializedlength:").append(DumpPayload.valueLength(payload))
                .append(" lru:").append(lru).append(" lru_seconds_idle:").append(idle);
        if (e.type() == StoredValue.LIST) {
            List<byte[]> elements;
            try {
                elements = DumpPayload.valueOf(payload).list();
            } catch (DumpPayload.RefusedException unreadable) {
                throw new IllegalStateException("the DUMP payload of a stored list was refused", unreadable);
            }
            List<byte[]> nodes = DumpPayload.quicklistNodes(elements);
            long bytes = nodes.stream().mapToLong(n -> n.length).sum();
            line.append(" ql_nodes:").append(nodes.size())
                    .append(" ql_avg_node:").append(String.format(Locale.ROOT, "%.2f",
                            nodes.isEmpty() ? 0.0 : (double) elements.size() / nodes.size()))
                    .append(" ql_listpack_max:-2 ql_compressed:0 ql_uncompressed_size:").append(bytes);
        }
        r.simple(line.toString());
    }

    /**
     * RELOAD [MERGE|NOFLUSH|NOSAVE ...]: Redis saves its RDB and loads it back, to check that the
     * data survives. Here the map files are the data, so there is nothing to load: the maps are
     * forced to the device, as SAVE forces them, and the options are checked as Redis checks them.
     */
    private void reload(byte[][] a, Reply r) {
        for (int i = 2; i < a.length; i++) {
            if (!Args.is(a[i], "MERGE") && !Args.is(a[i], "NOFLUSH") && !Args.is(a[i], "NOSAVE")) {
                r.error("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
                return;
            }
        }
        ctx.save(table.changesRun());
        r.ok();
    }

    /**
     * POPULATE count [prefix] [size]: string keys {@code prefix:N} holding {@code value:N} (cut or
     * padded with zero bytes to {@code size}), for N from 0; keys that exist are left as they are.
     * As in Redis, they are not sent to replicas.
     */
    private void populate(Client c, byte[][] a, Reply r) {
        long count = atol(a[2]);
        if (count < 0) {
            r.error("ERR value is out of range, must be positive");
            return;
        }
        String prefix = a.length > 3 ? Errors.text(a[3]) : "key";
        long size = 0;
        if (a.length > 4) {
            size = atol(a[4]);
            if (size < 0) {
                r.error("ERR value is out of range, must be positive");
                return;
            }
        }
        KeyValueStore store = ctx.db(c);
        for (long i = 0; i < count; i++) {
            byte[] key = Errors.bytes(prefix + ":" + i);
            if (store.raw(key) != null) {
                continue;
            }
            byte[] value = Args.bytes("value:" + i);
            if (size > 0) {
                value = java.util.Arrays.copyOf(value, Math.toIntExact(size));
            }
            store.set(key, value, StoredValue.NO_EXPIRY);
        }
        r.ok();
    }

    /** QUICKLIST-PACKED-THRESHOLD size: checked as Redis checks it; lists here never hold plain nodes. */
    private static void packedThreshold(byte[] size, Reply r) {
        long bytes;
        try {
            bytes = MemorySize.parse(Errors.text(size));
        } catch (IllegalArgumentException e) {
            bytes = -1;
        }
        if (bytes < 0 || bytes > MAX_PACKED_THRESHOLD) {
            r.error("ERR argument must be a memory value bigger than 1 and smaller than 4gb");
        } else {
            r.ok();
        }
    }

    /** STRINGMATCH-TEST: random patterns against random strings, as Redis's fuzzer; a failure is an exception. */
    private static void globFuzz() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        byte[] alphabet = Args.bytes("ab*?[]^-\\");
        for (int i = 0; i < 100_000; i++) {
            byte[] pattern = new byte[random.nextInt(16)];
            byte[] text = new byte[random.nextInt(16)];
            for (int j = 0; j < pattern.length; j++) {
                pattern[j] = alphabet[random.nextInt(alphabet.length)];
            }
            for (int j = 0; j < text.length; j++) {
                text[j] = alphabet[random.nextInt(alphabet.length)];
            }
            Glob.matches(pattern, text);
        }
    }

    /** C's {@code strtod}: the longest number at the start of {@code s} (after blanks), 0 if none. */
    private static double strtod(String s) {
        java.util.regex.Matcher m = LEADING_DOUBLE.matcher(s);
        if (!m.find()) {
            String t = s.strip().toLowerCase(Locale.ROOT);
            return t.startsWith("inf") || t.startsWith("+inf") ? Double.POSITIVE_INFINITY : 0;
        }
        return Double.parseDouble(m.group().strip());
    }

    /** C's {@code atoi}: the digits at the start of {@code b} (after blanks and a sign), 0 if none. */
    private static long atoi(byte[] b) {
        java.util.regex.Matcher m = LEADING_INTEGER.matcher(Errors.text(b));
        if (!m.find()) {
            return 0;
        }
        try {
            return Long.parseLong(m.group().strip());
        } catch (NumberFormatException e) {
            return m.group().contains("-") ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    /** A count as Redis's POPULATE reads it: a whole integer, else -1. */
    private static long atol(byte[] b) {
        java.util.OptionalLong n = Args.toLong(b);
        return n.isPresent() ? n.getAsLong() : -1;
    }
}
