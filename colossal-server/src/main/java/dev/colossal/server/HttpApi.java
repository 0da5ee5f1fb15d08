package dev.colossal.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.colossal.map.MapCorruptedException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.Lock;

/**
 * The HTTP front end, on the JDK's built-in server with virtual threads:
 *
 * <pre>
 *  GET    /v1/keys/{key}                   the value, as application/octet-stream (404 if absent)
 *  PUT    /v1/keys/{key}[?ttl=seconds]     store the body; or the TTL in header X-TTL-Seconds or
 *                                          X-TTL-Millis (one of the three; other X-TTL-* headers: 400)
 *  DELETE /v1/keys/{key}                   204, or 404 if absent
 *  GET    /v1/keys?prefix=p&amp;cursor=c&amp;count=n   {"cursor":"...","keys":[...]} (keys base64url if not UTF-8;
 *                                          at most n keys a page; n at least 1, default 100, cut to
 *                                          10000, said by header X-Count-Limit; the cursor is opaque,
 *                                          "0" at the end)
 *  GET    /v1/stats                        JSON counters
 *  GET    /metrics                         Prometheus text
 *  GET    /health                          200 "ok"
 * </pre>
 *
 * Every {@code /v1/keys} request takes {@code ?db=N} (also {@code &db=N} after other parameters),
 * the database SELECT N chooses over RESP, 0 if not given; a number that is not one of the
 * server's databases is a 400 that names the range.
 *
 * <p>HEAD is answered as GET without the body; a method a path does not take, 405 with an
 * {@code Allow} header. Every error is JSON, {@code {"error":"..."}}, except
 * a request line the JDK's server cannot parse (a path with a malformed escape such as
 * {@code %ZZ}): it answers 400 in HTML itself, before any handler runs. Keys in paths are
 * percent-decoded bytes, a {@code +} in them a plus (in a query string it is a space, as in
 * forms); {@code /v1/keys/} with nothing after the slash is the empty key. A password set with
 * {@code --requirepass} is required as {@code Authorization: Bearer <password>} for everything but
 * /health; a missing one is answered with NOAUTH and a wrong one with WRONGPASS, as over RESP.
 */
final class HttpApi implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService executor;
    private final ServerContext ctx;
    /** The RESP commands, for their counts in /metrics. */
    private final CommandTable table;

    private HttpApi(ServerContext ctx, CommandTable table, HttpServer server, ExecutorService executor) {
        this.ctx = ctx;
        this.table = table;
        this.server = server;
        this.executor = executor;
    }

    static HttpApi start(ServerContext ctx, CommandTable table) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(ctx.bind, ctx.config.httpPort()), 128);
        ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor();
        s.setExecutor(ex);
        HttpApi api = new HttpApi(ctx, table, s, ex);
        s.createContext("/", api::handle);
        s.start();
        ctx.httpPort = s.getAddress().getPort();
        return api;
    }

    private void handle(HttpExchange x) throws IOException {
        ctx.stats.httpRequests.increment();
        // The exchange closes after the error reply: closed first, the client would get no answer.
        try {
            String method = x.getRequestMethod();
            ctx.pause.awaitUnheld(method.equals("PUT") || method.equals("DELETE"));
            route(x);
        } catch (InterruptedException e) {
            error(x, 503, "the server is stopping"); // its executor's shutdownNow, with the write held
        } catch (RuntimeException e) {
            int db = dbNumber(query(x).get("db"));
            KeyValueStore store = ctx.dbs.store(db >= 0 && db < ctx.dbs.count() ? db : 0);
            if (e instanceof MapCorruptedException damage) {
                store.damaged(damage); // said on stderr once, as over RESP
            } else if (e instanceof java.io.UncheckedIOException full) {
                store.noRoom(full);
            }
            // The text RESP answers (no Java class names); a map file that cannot grow is 507
            // Insufficient Storage, HTTP's own status for a write refused for lack of room.
            error(x, e instanceof java.io.UncheckedIOException ? 507 : 500, Errors.of(e));
        } catch (Error e) {
            if (EventLoop.poisonsJvm(e)) {
                ctx.fail("HTTP " + x.getRequestMethod() + " " + x.getRequestURI(), e);
            } else {
                System.err.println("colossal: HTTP " + x.getRequestMethod() + " " + x.getRequestURI() + " from "
                        + x.getRemoteAddress() + " failed: " + e);
                e.printStackTrace();
            }
            error(x, 500, String.valueOf(e));
        } finally {
            x.close();
        }
    }

    private void route(HttpExchange x) throws IOException {
        String path = x.getRequestURI().getRawPath();
        // HEAD is answered as GET; send() leaves the body out.
        String method = x.getRequestMethod().equals("HEAD") ? "GET" : x.getRequestMethod();
        if (path.equals("/health")) {
            if (method.equals("GET")) {
                send(x, 200, "text/plain", Args.bytes("ok\n"));
            } else {
                notAllowed(x, "GET", "HEAD");
            }
            return;
        }
        if (ProtectedMode.refusesHttp(ctx, x.getRemoteAddress())) {
            error(x, 403, ProtectedMode.DENIED);
            return;
        }
        String pass = ctx.requirePass;
        String given = x.getRequestHeaders().getFirst("Authorization");
        if (pass != null && !("Bearer " + pass).equals(given)) {
            // As over RESP: no credentials is NOAUTH, wrong ones are AUTH's WRONGPASS.
            error(x, 401, given == null ? Errors.NOAUTH : Errors.WRONGPASS);
            return;
        }
        if (path.startsWith("/v1/keys/")) {
            // The key is the rest of the path, percent-decoded: nothing after the slash is the
            // empty key, as legal as any other in Redis (SET "" v), and the listing gives it as "".
            byte[] key;
            try {
                key = pathBytes(path.substring("/v1/keys/".length()));
            } catch (IllegalArgumentException e) { // the JDK's server refuses these first; in case it changes
                error(x, 400, e.getMessage());
                return;
            }
            KeyValueStore store = database(x);
            if (store != null) {
                key(x, method, store, key);
            }
        } else if (!path.equals("/v1/keys") && !path.equals("/v1/stats") && !path.equals("/metrics")) {
            // the ones there are, for whoever guessed (GET / or /keys/KEY without the version)
            error(x, 404, "no such endpoint: " + x.getRequestMethod() + " " + path
                    + "; there are /v1/keys/KEY, /v1/keys?prefix=P, /v1/stats, /metrics and /health");
        } else if (!method.equals("GET")) {
            notAllowed(x, "GET", "HEAD");
        } else if (path.equals("/v1/keys")) {
            KeyValueStore store = database(x);
            if (store != null) {
                scan(x, store);
            }
        } else if (path.equals("/v1/stats")) {
            send(x, 200, "application/json", json(stats()));
        } else {
            send(x, 200, "text/plain; version=0.0.4", Args.bytes(metrics()));
        }
    }

    /** What {@link #dbNumber} returns for no number. */
    private static final int NOT_A_NUMBER = -1;

    /** @return the database {@code db=} names, 0 if none: {@link #NOT_A_NUMBER} if it is not a plain number */
    private static int dbNumber(String db) {
        if (db == null) {
            return 0;
        }
        if (db.isEmpty() || db.length() > 9 || !db.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            return NOT_A_NUMBER;
        }
        return Integer.parseInt(db);
    }

    /** @return the database the request's {@code ?db=} names (0 if none), or null once a 400 is sent */
    private KeyValueStore database(HttpExchange x) throws IOException {
        String given = query(x).get("db");
        int db = dbNumber(given);
        if (db == NOT_A_NUMBER || db >= ctx.dbs.count()) {
            error(x, 400, "db=" + given + " is not a database of this server: give a number from 0 to "
                    + (ctx.dbs.count() - 1) + " (--databases " + ctx.dbs.count() + "), or no db for 0");
            return null;
        }
        return ctx.dbs.store(db);
    }

    /** 405 for a method the path does not take, with the {@code Allow} header HTTP asks for. */
    private static void notAllowed(HttpExchange x, String... allowed) throws IOException {
        x.getResponseHeaders().set("Allow", String.join(", ", allowed));
        String last = allowed[allowed.length - 1];
        String choices = allowed.length == 1 ? last
                : String.join(", ", java.util.Arrays.copyOf(allowed, allowed.length - 1)) + " or " + last;
        error(x, 405, "method " + x.getRequestMethod() + " not allowed on " + x.getRequestURI().getRawPath()
                + "; use " + choices);
    }

    private void key(HttpExchange x, String method, KeyValueStore store, byte[] key) throws IOException {
        if (ctx.replica.following() && (method.equals("PUT") || method.equals("DELETE"))) {
            // RESP's READONLY, as an HTTP status: the master's writes alone change a replica
            error(x, 409, ReplicaCommands.READONLY + " Write to the master, or run REPLICAOF NO ONE first");
            return;
        }
        switch (method) {
            case "GET" -> get(x, store, MemorySegment.ofArray(key));
            case "PUT" -> put(x, store, key);
            case "DELETE" -> {
                Lock l = store.lock(key);
                boolean ordered = ctx.replicas.orderFromOutside();
                boolean gone;
                try {
                    ctx.replicas.beforeWrite(store, key);
                    l.lock();
                    try {
                        gone = store.delete(key);
                        if (gone) {
                            ctx.events.fire(KeyspaceEvents.GENERIC, "del", store, key);
                            ctx.replicas.written(store, new byte[][] {Args.bytes("DEL"), key});
                        }
                    } finally {
                        l.unlock();
                    }
                } finally {
                    if (ordered) {
                        ctx.replicas.release();
                    }
                }
                ctx.waits.serveReady(); // a blocked XREADGROUP whose stream this removed ends now, as after DEL
                if (gone) {
                    send(x, 204, null, null);
                } else {
                    noSuchKey(x, key.length);
                }
            }
            default -> notAllowed(x, "GET", "HEAD", "PUT", "DELETE");
        }
    }

    /** 404 for an absent key; for the empty key, where the listing is, for whoever meant that. */
    private static void noSuchKey(HttpExchange x, long keyLength) throws IOException {
        error(x, 404, keyLength > 0 ? "no such key"
                : "no such key: /v1/keys/ is the empty key; the listing is /v1/keys");
    }

    /**
     * GET of a key: its stored form goes from the map into native memory, freed when the request is
     * done, and from there to the socket a piece at a time; no copy of a big value on the heap.
     */
    private void get(HttpExchange x, KeyValueStore store, MemorySegment key) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(4096);
            long n;
            while ((n = store.copyStored(key, buf, 0)) > buf.byteSize()) {
                buf = arena.allocate(n); // the value grew meanwhile? then again, larger
            }
            if (n < 0) {
                noSuchKey(x, key.byteSize());
                return;
            }
            long at = StoredValue.expireAt(buf, 0, n);
            byte flags = StoredValue.flags(buf, 0);
            if (!StoredValue.isString(flags)) {
                // The body would be this server's encoding of the value, which no client could read
                String type = StoredValue.typeName(StoredValue.type(flags));
                error(x, 409, Errors.WRONGTYPE + ": the key holds a " + type + "; read it over RESP");
                return;
            }
            if (at != StoredValue.NO_EXPIRY) {
                x.getResponseHeaders().set("X-TTL-Millis", Long.toString(Math.max(0, at - ctx.now())));
            }
            int payload = StoredValue.payloadOffset(buf, 0);
            sendBody(x, 200, "application/octet-stream", buf.asSlice(payload, n - payload));
        }
    }

    /**
     * PUT of a key: a body announced longer than the longest string is refused before a byte of it
     * is read; the body goes from the socket into native memory, behind room for the stored form's
     * header, and from there into the map, freed when the request is done.
     */
    private void put(HttpExchange x, KeyValueStore store, byte[] key) throws IOException {
        long at = deadline(x);
        if (at == REFUSED) {
            return;
        }
        if (ctx.dbs.memoryFull()) {
            // as RESP's SET is refused: the body is left unread, as after a 413
            error(x, 507, OomRefusal.ERROR + " Free room (DELETE keys) or raise it (CONFIG SET maxmemory)");
            return;
        }
        long max = ctx.maxStringBytes();
        // With --maxmemory, the longest value the bound takes under this key, if shorter.
        long fits = store.largestValue(key.length, at);
        String declared = x.getRequestHeaders().getFirst("Content-Length"); // the JDK checked it is a number >= 0
        if (declared != null && Long.parseLong(declared) > max) {
            error(x, 413, "value of " + declared + " bytes is longer than " + max + ", the longest string this server stores");
            return;
        }
        if (declared != null && Long.parseLong(declared) > fits) {
            tooLargeForBound(x, Long.parseLong(declared), fits);
            return;
        }
        int header = StoredValue.headerLength(at);
        long length = declared != null ? Long.parseLong(declared) : -1;
        try (InputStream in = x.getRequestBody(); NativeBuffer body = new NativeBuffer(header + (length >= 0 ? length : 64 * 1024))) {
            body.length = header;
            byte[] piece = new byte[(int) Math.min(64 * 1024, Math.max(length, 1))];
            for (int r; (r = in.read(piece)) > 0; ) {
                if (body.length - header + r > max) { // chunked: no length to refuse it by
                    error(x, 413, "value longer than " + max + " bytes, the longest string this server stores");
                    return;
                }
                if (body.length - header + r > fits) {
                    tooLargeForBound(x, -1, fits);
                    return;
                }
                body.append(piece, r);
            }
            Lock l = store.lock(key);
            boolean ordered = ctx.replicas.orderFromOutside();
            try {
                ctx.replicas.beforeWrite(store, key);
                l.lock();
                try {
                    store.setInPlace(MemorySegment.ofArray(key), body.segment, header, body.length - header, at);
                    // What SET and SET EX publish: a PUT is one of them
                    ctx.events.fire(KeyspaceEvents.STRING, "set", store, key);
                    if (at != StoredValue.NO_EXPIRY) {
                        ctx.events.fire(KeyspaceEvents.GENERIC, "expire", store, key);
                    }
                    if (ordered) {
                        byte[] value = body.segment.asSlice(header, body.length - header).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                        ctx.replicas.written(store, at == StoredValue.NO_EXPIRY ? new byte[][] {Args.bytes("SET"), key, value}
                                : new byte[][] {Args.bytes("SET"), key, value, Args.bytes("PXAT"), Args.bytes(Long.toString(at))});
                    }
                } finally {
                    l.unlock();
                }
            } finally {
                if (ordered) {
                    ctx.replicas.release();
                }
            }
            ctx.waits.serveReady(); // a blocked XREADGROUP whose stream this replaced ends now, as after SET
        }
        send(x, 204, null, null);
    }

    /** 413 for a value longer than {@code --maxmemory} takes under the key (RESP's {@code OOM}); length -1 if unknown. */
    private void tooLargeForBound(HttpExchange x, long length, long fits) throws IOException {
        error(x, 413, "value " + (length >= 0 ? "of " + length + " bytes is longer than " : "longer than ") + fits
                + " bytes, the longest this key takes with --maxmemory " + ctx.config.maxMemoryBytes()
                + " (the bound is kept per segment of the map, and a key and its value must fit in one)");
    }

    /** What {@link #deadline} returns after answering 400. */
    private static final long REFUSED = Long.MIN_VALUE;

    /**
     * The deadline a PUT asks for: {@code ?ttl=} or {@code X-TTL-Seconds} in seconds, or
     * {@code X-TTL-Millis}, the header a GET answers with, in milliseconds; at most one of them.
     * Another {@code X-TTL-} header is refused rather than ignored: a client that sent it meant a
     * TTL, and a key stored without one would outlive what it asked for.
     *
     * @return the deadline, {@link StoredValue#NO_EXPIRY} for none, or {@link #REFUSED} once a 400 is sent
     */
    private long deadline(HttpExchange x) throws IOException {
        List<String> given = new ArrayList<>();
        String ttl = null;
        long unit = 1000;
        String query = query(x).get("ttl");
        if (query != null) {
            given.add("?ttl=");
            ttl = query;
        }
        for (Map.Entry<String, List<String>> h : x.getRequestHeaders().entrySet()) {
            String name = h.getKey(); // as the JDK normalizes it: "X-ttl-millis"
            boolean millis = name.equalsIgnoreCase("X-TTL-Millis");
            if (millis || name.equalsIgnoreCase("X-TTL-Seconds")) {
                given.add(millis ? "X-TTL-Millis" : "X-TTL-Seconds");
                ttl = h.getValue().getFirst();
                unit = millis ? 1 : 1000;
            } else if (name.regionMatches(true, 0, "X-TTL-", 0, 6)) {
                error(x, 400, "header X-TTL-" + name.substring(6) + " is not one this API reads; give a TTL as"
                        + " X-TTL-Seconds, X-TTL-Millis or ?ttl=SECONDS");
                return REFUSED;
            }
        }
        if (given.isEmpty()) {
            return StoredValue.NO_EXPIRY;
        }
        if (given.size() > 1) {
            error(x, 400, "a TTL is given as " + String.join(" and ", given) + "; give it once");
            return REFUSED;
        }
        long n = Args.toLong(Args.bytes(ttl)).orElse(0);
        long now = ctx.now();
        if (n <= 0 || n > (Long.MAX_VALUE - now) / unit) {
            error(x, 400, (query != null ? "ttl=" : given.getFirst() + ": ") + ttl + " must be a positive number of "
                    + (unit == 1 ? "milliseconds" : "seconds"));
            return REFUSED;
        }
        return now + n * unit;
    }

    /** Bytes in native memory, growing as appended to; freed by {@link #close}. Confined to one thread. */
    private static final class NativeBuffer implements AutoCloseable {
        private Arena arena = Arena.ofConfined();
        MemorySegment segment;
        long length;

        NativeBuffer(long capacity) {
            segment = arena.allocate(capacity);
        }

        void append(byte[] b, int n) {
            if (length + n > segment.byteSize()) {
                Arena grown = Arena.ofConfined();
                MemorySegment bigger = grown.allocate(Math.max(segment.byteSize() * 2, length + n));
                MemorySegment.copy(segment, 0, bigger, 0, length);
                arena.close();
                arena = grown;
                segment = bigger;
            }
            MemorySegment.copy(b, 0, segment, ValueLayout.JAVA_BYTE, length, n);
            length += n;
        }

        @Override
        public void close() {
            arena.close();
        }
    }

    /** Keys one listing page holds at most: a larger count is cut to it. */
    private static final int MAX_PAGE = 10_000;

    /** Keys one listing request looks at, at most (about 0.1-0.3 s of scanning). */
    private static final long MAX_LOOKED = 1_000_000;

    private void scan(HttpExchange x, KeyValueStore store) throws IOException {
        Map<String, String> q = query(x);
        byte[] prefix = q.getOrDefault("prefix", "").getBytes(StandardCharsets.ISO_8859_1);
        String rawCursor = q.getOrDefault("cursor", "0");
        int dot = rawCursor.indexOf('.');
        long cursor;
        byte[] after;
        long count;
        try {
            cursor = Long.parseUnsignedLong(dot < 0 ? rawCursor : rawCursor.substring(0, dot));
            after = dot < 0 ? null : Base64.getUrlDecoder().decode(rawCursor.substring(dot + 1));
            count = Long.parseLong(q.getOrDefault("count", "100"));
        } catch (IllegalArgumentException e) { // NumberFormatException too
            error(x, 400, "cursor must be 0 or one a listing returned, and count a number");
            return;
        }
        if (count < 1) {
            error(x, 400, "count=" + count + " must be a positive number of keys");
            return;
        }
        int want = (int) Math.min(count, MAX_PAGE);
        if (count > MAX_PAGE) {
            // Cut rather than refused, so that "all you can" is one request; the header says it was.
            x.getResponseHeaders().set("X-Count-Limit", Integer.toString(MAX_PAGE));
        }
        byte[] glob = globPrefix(prefix);
        // Unlike SCAN's COUNT (keys looked at), count here is keys returned, at most. Steps go on
        // past the keys the prefix skips, sized by how many keys the last one found, until the
        // page is full or MAX_LOOKED keys were looked at, so that a rare prefix over a huge map
        // still answers soon (with fewer keys and a cursor to go on from). A step's keys come
        // whole (the map's cursor moves a step at a time): one that finds more than the page has
        // room for is taken again smaller, down to a single entry's step, and the keys of such a
        // step that still do not fit are handed out in byte order, the cursor naming the step
        // and the last key given ("STEP.BASE64URL"); the next page takes that step again.
        List<byte[]> keys = new ArrayList<>();
        long next = cursor;
        String resume = null;
        long looked = 0;
        long stepKeys = after != null ? 1 : want;
        while (keys.size() < want && looked < MAX_LOOKED) {
            int room = want - keys.size();
            KeyCommands.ScanPage page = KeyCommands.page(store, next, stepKeys, glob);
            looked += stepKeys;
            List<byte[]> found = page.keys();
            if (after != null || (found.size() > room && stepKeys == 1)) {
                found = new ArrayList<>(found);
                found.sort(java.util.Arrays::compareUnsigned);
                if (after != null) {
                    byte[] last = after;
                    found.removeIf(k -> java.util.Arrays.compareUnsigned(k, last) <= 0);
                    after = null;
                }
            }
            if (found.size() > room) {
                if (stepKeys > 1) {
                    stepKeys = Math.max(1, stepKeys * room / (2L * found.size()));
                    continue;
                }
                keys.addAll(found.subList(0, room));
                resume = Long.toUnsignedString(next) + "."
                        + Base64.getUrlEncoder().withoutPadding().encodeToString(found.get(room - 1));
                break;
            }
            keys.addAll(found);
            next = page.next();
            if (next == 0) {
                break;
            }
            // The next step sized for what is left of the page at the density this one found.
            long left = want - keys.size();
            stepKeys = found.isEmpty() ? 2 * stepKeys : Math.max(1, stepKeys * left * 3 / (4L * found.size()));
            stepKeys = Math.min(stepKeys, MAX_LOOKED);
        }
        StringBuilder sb = new StringBuilder("{\"cursor\":\"").append(resume != null ? resume : Long.toUnsignedString(next))
                .append("\",\"keys\":[");
        for (int i = 0; i < keys.size(); i++) {
            sb.append(i == 0 ? "" : ",").append(keyJson(keys.get(i)));
        }
        send(x, 200, "application/json", json(sb.append("]}").toString()));
    }

    private static byte[] globPrefix(byte[] prefix) {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        for (byte c : prefix) {
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                b.write('\\');
            }
            b.write(c);
        }
        b.write('*');
        return b.toByteArray();
    }

    private static String keyJson(byte[] k) {
        String s = new String(k, StandardCharsets.UTF_8);
        if (java.util.Arrays.equals(s.getBytes(StandardCharsets.UTF_8), k)) {
            return quote(s);
        }
        return "{\"base64url\":\"" + Base64.getUrlEncoder().withoutPadding().encodeToString(k) + "\"}";
    }

    /**
     * Percent-decodes a path segment to bytes. Unlike {@link URLDecoder}, which decodes forms, a
     * {@code +} stays a {@code +}: it means a space only in a query string.
     */
    static byte[] pathBytes(String raw) {
        byte[] out = new byte[raw.length()];
        int n = 0;
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c != '%') {
                out[n++] = (byte) c; // the request line's characters are bytes (ISO-8859-1)
                continue;
            }
            int hi = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
            int lo = hi >= 0 ? Character.digit(raw.charAt(i + 2), 16) : -1;
            if (lo < 0) {
                throw new IllegalArgumentException("malformed escape at " + i + " in " + raw);
            }
            out[n++] = (byte) (hi << 4 | lo);
            i += 2;
        }
        return java.util.Arrays.copyOf(out, n);
    }

    private static Map<String, String> query(HttpExchange x) {
        Map<String, String> m = new HashMap<>();
        String raw = x.getRequestURI().getRawQuery();
        if (raw != null) {
            for (String kv : raw.split("&")) {
                int eq = kv.indexOf('=');
                String k = eq < 0 ? kv : kv.substring(0, eq);
                String v = eq < 0 ? "" : kv.substring(eq + 1);
                m.put(URLDecoder.decode(k, StandardCharsets.UTF_8), URLDecoder.decode(v, StandardCharsets.ISO_8859_1));
            }
        }
        return m;
    }

    private String stats() {
        Stats s = ctx.stats;
        return "{\"keys\":" + ctx.dbs.keys() + ",\"connected_clients\":" + s.connectedClients.sum()
                + ",\"total_connections_received\":" + s.connectionsReceived.sum()
                + ",\"total_commands_processed\":" + s.commands.sum()
                + ",\"keyspace_hits\":" + s.keyspaceHits.sum() + ",\"keyspace_misses\":" + s.keyspaceMisses.sum()
                + ",\"expired_keys\":" + s.expiredKeys.sum() + ",\"evicted_keys\":" + ctx.evictedKeys()
                + ",\"http_requests\":" + s.httpRequests.sum()
                + ",\"uptime_seconds\":" + (ctx.now() - ctx.startMillis) / 1000
                + ",\"redis_version\":\"" + ServerContext.REDIS_VERSION + "\",\"colossal_version\":\""
                + ServerContext.COLOSSAL_VERSION + "\"}";
    }

    private String metrics() {
        Stats s = ctx.stats;
        StringBuilder sb = new StringBuilder();
        metric(sb, "colossal_keys", "gauge", "Entries in every database's map, expired ones not yet purged included",
                ctx.dbs.keys());
        metric(sb, "colossal_connected_clients", "gauge", "Open RESP connections", s.connectedClients.sum());
        metric(sb, "colossal_pubsub_channels", "gauge", "Channels with a subscriber (INFO's pubsub_channels)",
                ctx.pubsub.channelCount());
        metric(sb, "colossal_pubsub_patterns", "gauge", "Patterns with a subscriber (INFO's pubsub_patterns)",
                ctx.pubsub.patternCount());
        metric(sb, "colossal_pubsub_shard_channels", "gauge", "Shard channels with a subscriber (INFO's pubsubshard_channels)",
                ctx.pubsub.shardChannelCount());
        metric(sb, "colossal_connections_received_total", "counter", "RESP connections accepted", s.connectionsReceived.sum());
        metric(sb, "colossal_rejected_connections_total", "counter", "Connections refused at maxclients", s.rejectedConnections.sum());
        metric(sb, "colossal_commands_processed_total", "counter", "RESP commands run", s.commands.sum());
        metric(sb, "colossal_keyspace_hits_total", "counter", "GETs that found a key", s.keyspaceHits.sum());
        metric(sb, "colossal_keyspace_misses_total", "counter", "GETs that found nothing", s.keyspaceMisses.sum());
        metric(sb, "colossal_expired_keys_total", "counter", "Keys removed because their TTL passed", s.expiredKeys.sum());
        metric(sb, "colossal_evicted_keys_total", "counter", "Keys evicted to stay within --maxmemory", ctx.evictedKeys());
        metric(sb, "colossal_protocol_errors_total", "counter", "Connections closed for malformed RESP", s.protocolErrors.sum());
        metric(sb, "colossal_error_replies_total", "counter", "RESP error replies, protocol errors included", s.errorReplies.sum());
        metric(sb, "colossal_net_input_bytes_total", "counter", "RESP bytes read", s.bytesIn.sum());
        metric(sb, "colossal_net_output_bytes_total", "counter", "RESP bytes written", s.bytesOut.sum());
        metric(sb, "colossal_http_requests_total", "counter", "HTTP requests", s.httpRequests.sum());
        metric(sb, "colossal_map_file_bytes", "gauge", "Size of the databases' map files (-1: unreadable)", ctx.dbs.fileBytes());
        metric(sb, "colossal_disk_free_bytes", "gauge", "Space the map files' file system has free for them to grow (-1: unknown)",
                ctx.dbs.anyOpen().diskFreeBytes());
        metric(sb, "colossal_writes_refused_no_room_total", "counter", "Writes refused because a map file could not grow",
                ctx.dbs.noRoomRefusals());
        metric(sb, "colossal_map_repairs_total", "counter",
                "Segments repaired after a writer died holding their lock, over the files' life", ctx.dbs.repairs());
        commandMetrics(sb);
        // One series per database with keys, as INFO keyspace lists them
        sb.append("# HELP colossal_db_keys Entries in one database's map\n# TYPE colossal_db_keys gauge\n");
        for (int db = 0; db < ctx.dbs.count(); db++) {
            MapStore m = ctx.dbs.opened(db);
            if (m != null && m.size() > 0) {
                sb.append("colossal_db_keys{db=\"").append(db).append("\"} ").append(m.size()).append('\n');
            }
        }
        return sb.toString();
    }

    /**
     * INFO commandstats and errorstats as Prometheus series, for dashboards that scrape /metrics
     * rather than run redis_exporter: calls, seconds, rejected and failed calls by command (table
     * publishes GET's and SET's per batch, so those of a batch still running come with the next
     * scrape), and error replies by kind.
     */
    private void commandMetrics(StringBuilder sb) {
        StringBuilder calls = new StringBuilder();
        StringBuilder seconds = new StringBuilder();
        StringBuilder rejected = new StringBuilder();
        StringBuilder failed = new StringBuilder();
        table.forEachStats((name, stats) -> {
            String label = "{command=\"" + name + "\"} ";
            calls.append("colossal_command_calls_total").append(label).append(stats.calls.sum()).append('\n');
            seconds.append("colossal_command_seconds_total").append(label).append(stats.nanos.sum() / 1e9).append('\n');
            rejected.append("colossal_command_rejected_calls_total").append(label).append(stats.rejected.sum()).append('\n');
            failed.append("colossal_command_failed_calls_total").append(label).append(stats.failed.sum()).append('\n');
        });
        family(sb, "colossal_command_calls_total", "RESP commands run, by command (INFO commandstats' calls)", calls);
        family(sb, "colossal_command_seconds_total", "Time RESP commands took, by command", seconds);
        family(sb, "colossal_command_rejected_calls_total", "RESP commands refused before running (arity, AUTH), by command",
                rejected);
        family(sb, "colossal_command_failed_calls_total", "RESP commands that answered an error of their own, by command",
                failed);
        StringBuilder kinds = new StringBuilder();
        new java.util.TreeMap<>(ctx.stats.errorKinds).forEach((kind, n) ->
                kinds.append("colossal_error_replies_by_kind_total{kind=\"").append(kind).append("\"} ").append(n.sum())
                        .append('\n'));
        family(sb, "colossal_error_replies_by_kind_total", "RESP error replies by their first word (INFO errorstats)", kinds);
    }

    private static void family(StringBuilder sb, String name, String help, CharSequence series) {
        sb.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(" counter\n")
                .append(series);
    }

    private static void metric(StringBuilder sb, String name, String type, String help, long value) {
        sb.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(' ')
                .append(type).append('\n').append(name).append(' ').append(value).append('\n');
    }

    private static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    private static byte[] json(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Answers {"error":"message"}, the shape of every error this API returns. */
    private static void error(HttpExchange x, int status, String message) throws IOException {
        send(x, status, "application/json", json("{\"error\":" + quote(message) + "}"));
    }

    private static void send(HttpExchange x, int status, String type, byte[] body) throws IOException {
        sendBody(x, status, type, body == null ? null : MemorySegment.ofArray(body));
    }

    /** Answers {@code body} (none if null), written to the socket a piece at a time. */
    private static void sendBody(HttpExchange x, int status, String type, MemorySegment body) throws IOException {
        if (type != null) {
            x.getResponseHeaders().set("Content-Type", type);
        }
        if (body == null) {
            x.sendResponseHeaders(status, -1);
            return;
        }
        long n = body.byteSize();
        if (x.getRequestMethod().equals("HEAD")) {
            // The JDK sends a HEAD answer's length only as a header of ours; given to it, it logs a warning.
            x.getResponseHeaders().set("Content-Length", Long.toString(n));
            x.sendResponseHeaders(status, -1);
            return;
        }
        x.sendResponseHeaders(status, n == 0 ? -1 : n);
        byte[] piece = new byte[(int) Math.min(64 * 1024, n)];
        // Closed here, the answer goes out now: closing the exchange would first read what is left
        // of the request's body, which after a 413 the client may be holding back or still sending.
        try (OutputStream out = x.getResponseBody()) {
            for (long at = 0; at < n; at += piece.length) {
                int len = (int) Math.min(piece.length, n - at);
                MemorySegment.copy(body, ValueLayout.JAVA_BYTE, at, piece, 0, len);
                out.write(piece, 0, len);
            }
        }
    }

    /** Stops listening and closes the connections; returns once requests under way have ended (5 s at most). */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        try {
            // A PUT may be writing into the map, which the server closes next.
            executor.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
