package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.pubsub.api.sync.RedisPubSubCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;

/**
 * Pub/sub with real clients and real sockets: Jedis and Lettuce (RESP2, and RESP3's push frames),
 * redis-cli, delivery across event loops in each publisher's order, the slow-subscriber limit, and a
 * subscriber's subscriptions ending with its connection however it ends.
 */
class PubSubTest {

    @TempDir
    Path dir;

    @RegisterExtension
    final CapturedStderr stderr = new CapturedStderr();

    /** A server with {@code loops} event loops and an idle timeout of {@code idleSeconds} (0: none). */
    private ColossalServer server(int loops, int idleSeconds) throws IOException {
        ServerConfig d = ServerConfig.defaults();
        return ColossalServer.start(new ServerConfig(d.bind(), 0, 0, dir.resolve("data"), null, d.maxClients(),
                d.maxBulkBytes(), idleSeconds, loops, d.busyPollMicros()));
    }

    private static void eventually(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(10);
        }
    }

    private static long numsub(Jedis j, String channel) {
        return j.pubsubNumSub(channel).get(channel);
    }

    @Test
    void jedisSubscribesByChannelAndPattern() throws Exception {
        try (ColossalServer server = server(2, 0); Jedis pub = new Jedis("127.0.0.1", server.port())) {
            BlockingQueue<String> events = new LinkedBlockingQueue<>();
            JedisPubSub listener = new JedisPubSub() {
                @Override
                public void onMessage(String channel, String message) {
                    events.add("message " + channel + " " + message);
                }

                @Override
                public void onPMessage(String pattern, String channel, String message) {
                    events.add("pmessage " + pattern + " " + channel + " " + message);
                }

                @Override
                public void onSubscribe(String channel, int count) {
                    events.add("subscribe " + channel + " " + count);
                }

                @Override
                public void onPSubscribe(String pattern, int count) {
                    events.add("psubscribe " + pattern + " " + count);
                }

                @Override
                public void onPong(String pattern) {
                    events.add("pong " + pattern);
                }
            };
            Thread subscriber = Thread.ofPlatform().start(() -> {
                try (Jedis sub = new Jedis("127.0.0.1", server.port())) {
                    sub.subscribe(listener, "news");
                }
            });
            assertEquals("subscribe news 1", events.poll(10, TimeUnit.SECONDS));
            listener.psubscribe("n*");
            assertEquals("psubscribe n* 2", events.poll(10, TimeUnit.SECONDS));
            assertEquals(2, pub.publish("news", "hello"), "once by the channel, once by the pattern");
            assertEquals("message news hello", events.poll(10, TimeUnit.SECONDS));
            assertEquals("pmessage n* news hello", events.poll(10, TimeUnit.SECONDS));
            assertEquals(1, pub.publish("nope", "x"));
            assertEquals("pmessage n* nope x", events.poll(10, TimeUnit.SECONDS));
            listener.ping("alive");
            assertEquals("pong alive", events.poll(10, TimeUnit.SECONDS));
            assertEquals(Map.of("news", 1L, "other", 0L), pub.pubsubNumSub("news", "other"));
            assertEquals(1, pub.pubsubNumPat());
            assertEquals(List.of("news"), pub.pubsubChannels("n*"));
            listener.unsubscribe();
            listener.punsubscribe();
            subscriber.join(10_000);
            assertFalse(subscriber.isAlive(), "subscribe() returns once nothing is subscribed");
            assertEquals(0, pub.publish("news", "nobody"));
            assertEquals(0, pub.pubsubNumPat());
        }
    }

    @ParameterizedTest
    @EnumSource(value = ProtocolVersion.class, names = {"RESP2", "RESP3"})
    void lettucePubSubConnections(ProtocolVersion protocol) throws Exception {
        try (ColossalServer server = server(2, 0)) {
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", server.port()));
            client.setOptions(ClientOptions.builder().protocolVersion(protocol).build());
            try (StatefulRedisPubSubConnection<String, String> sub = client.connectPubSub();
                 var pub = client.connect()) {
                BlockingQueue<String> events = new LinkedBlockingQueue<>();
                sub.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String channel, String message) {
                        events.add(channel + " " + message);
                    }

                    @Override
                    public void message(String pattern, String channel, String message) {
                        events.add(pattern + " " + channel + " " + message);
                    }
                });
                RedisPubSubCommands<String, String> s = sub.sync();
                s.subscribe("news");
                s.psubscribe("n*");
                assertEquals(2, pub.sync().publish("news", "hello"));
                assertEquals("news hello", events.poll(10, TimeUnit.SECONDS));
                assertEquals("n* news hello", events.poll(10, TimeUnit.SECONDS));
                String me = pub.sync().clientList().lines().filter(l -> l.contains(" sub=1 ")).findFirst().orElseThrow();
                assertTrue(me.contains(" flags=P ") && me.contains(" psub=1 ")
                        && me.contains(" resp=" + (protocol == ProtocolVersion.RESP3 ? 3 : 2)), me);
                if (protocol == ProtocolVersion.RESP3) {
                    // Messages are out-of-band pushes: the subscribed connection runs any command
                    assertEquals("OK", s.set("k", "v"));
                    assertEquals(1, pub.sync().publish("nx", "between"));
                    assertEquals("v", s.get("k"));
                    assertEquals("n* nx between", events.poll(10, TimeUnit.SECONDS));
                }
                s.unsubscribe("news");
                s.punsubscribe("n*");
                assertEquals(0, pub.sync().publish("news", "nobody"));
            } finally {
                client.shutdown();
            }
        }
    }

    /**
     * Subscribers on every loop, publishers on several: each subscriber gets every message, each
     * publisher's in its order, and (as in Redis, publishes being serialised) all in the same order.
     */
    @Test
    void deliveryAcrossEventLoopsKeepsEachPublishersOrder() throws Exception {
        int loops = 4;
        int subscribers = 12;
        int byPattern = 4;
        int publishers = 3;
        int perPublisher = 3000;
        try (ColossalServer server = server(loops, 0)) {
            List<Wire> subs = new ArrayList<>();
            for (int i = 0; i < subscribers; i++) {
                Wire w = new Wire(server.port());
                subs.add(w);
                assertEquals("*3\r\n$9\r\nsubscribe\r\n$3\r\nbus\r\n:1\r\n", w.call("SUBSCRIBE", "bus"));
                if (i < byPattern) {
                    assertEquals("*3\r\n$10\r\npsubscribe\r\n$2\r\nb*\r\n:2\r\n", w.call("PSUBSCRIBE", "b*"));
                }
            }
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int p = 0; p < publishers; p++) {
                int publisher = p;
                threads.add(Thread.ofPlatform().start(() -> {
                    try (Wire w = new Wire(server.port())) {
                        for (int batch = 0; batch < perPublisher; batch += 100) {
                            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                            for (int seq = batch; seq < batch + 100; seq++) {
                                out.writeBytes(Wire.encode("PUBLISH", "bus", publisher + ":" + seq));
                            }
                            w.send(out.toByteArray());
                            for (int k = 0; k < 100; k++) {
                                assertEquals(":" + (subscribers + byPattern) + "\r\n", w.reply());
                            }
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            List<List<String>> received = new ArrayList<>();
            for (int i = 0; i < subscribers; i++) {
                Wire w = subs.get(i);
                List<String> payloads = new ArrayList<>();
                int[] next = new int[publishers];
                int expected = publishers * perPublisher * (i < byPattern ? 2 : 1);
                for (int n = 0; n < expected; n++) {
                    String[] parts = w.reply().split("\r\n");
                    String payload = parts[parts.length - 1];
                    if (i < byPattern) {
                        // one publish: its message, then at once its pmessage
                        assertEquals(n % 2 == 0 ? "message" : "pmessage", parts[2], "subscriber " + i + " frame " + n);
                        if (n % 2 == 1) {
                            assertEquals(payloads.get(payloads.size() - 1), payload);
                            continue;
                        }
                    }
                    int publisher = Integer.parseInt(payload.substring(0, payload.indexOf(':')));
                    int seq = Integer.parseInt(payload.substring(payload.indexOf(':') + 1));
                    assertEquals(next[publisher]++, seq, "subscriber " + i + ": publisher " + publisher + "'s order");
                    payloads.add(payload);
                }
                received.add(payloads);
            }
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(List.of(), failures);
            for (int i = 1; i < subscribers; i++) {
                assertEquals(received.get(0), received.get(i), "subscriber " + i + " saw another order");
            }
            for (Wire w : subs) {
                w.close();
            }
        }
    }

    /**
     * UNSUBSCRIBE races a publisher on another loop, 300 times: messages may come before its
     * confirmation, never after it (until the next SUBSCRIBE's), and each arrives in publish order.
     */
    @Test
    void noMessageFollowsTheUnsubscribeConfirmation() throws Exception {
        try (ColossalServer server = server(2, 0);
             Wire sub = new Wire(server.port());
             Wire pub = new Wire(server.port())) {
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            Thread publisher = Thread.ofPlatform().start(() -> {
                try {
                    for (int seq = 0; !stop.get(); seq += 50) {
                        java.io.ByteArrayOutputStream batch = new java.io.ByteArrayOutputStream();
                        for (int k = seq; k < seq + 50; k++) {
                            batch.writeBytes(Wire.encode("PUBLISH", "race", Integer.toString(k)));
                        }
                        pub.send(batch.toByteArray());
                        for (int k = 0; k < 50; k++) {
                            pub.reply();
                        }
                    }
                } catch (Throwable t) {
                    failures.add(t);
                }
            });
            int last = -1;
            int messages = 0;
            for (int round = 0; round < 300; round++) {
                sub.send(Wire.encode("SUBSCRIBE", "race"));
                assertEquals("*3\r\n$9\r\nsubscribe\r\n$4\r\nrace\r\n:1\r\n", sub.reply(),
                        "round " + round + ": a message came between UNSUBSCRIBE's confirmation and SUBSCRIBE's");
                sub.send(Wire.encode("UNSUBSCRIBE", "race"));
                for (String frame = sub.reply(); !frame.startsWith("*3\r\n$11\r\nunsubscribe"); frame = sub.reply()) {
                    String[] parts = frame.split("\r\n");
                    assertEquals("message", parts[2], frame);
                    int seq = Integer.parseInt(parts[parts.length - 1]);
                    assertTrue(seq > last, "message " + seq + " after " + last);
                    last = seq;
                    messages++;
                }
            }
            stop.set(true);
            publisher.join(10_000);
            assertEquals(List.of(), failures);
            assertTrue(messages > 0, "the publisher raced no subscription");
        }
    }

    /**
     * A subscriber that never reads, a publisher that floods: the subscriber is closed once its
     * unread output passes the 32 MiB hard limit, the server and the publisher go on, and a
     * subscriber that reads gets every message.
     */
    @Test
    void aSubscriberThatNeverReadsIsClosedAtTheHardLimit() throws Exception {
        try (ColossalServer server = server(2, 0);
             Socket slow = new Socket();
             Wire reader = new Wire(server.port());
             Wire pub = new Wire(server.port())) {
            slow.setReceiveBufferSize(4096);
            slow.connect(new java.net.InetSocketAddress("127.0.0.1", server.port()));
            OutputStream slowOut = slow.getOutputStream();
            slowOut.write(Wire.encode("SUBSCRIBE", "flood"));
            slowOut.flush();
            reader.call("SUBSCRIBE", "flood");
            eventually(() -> call(pub, "PUBSUB", "NUMSUB", "flood").endsWith(":2\r\n"), "two subscribers");
            AtomicLong readerGot = new AtomicLong();
            Thread readerThread = Thread.ofPlatform().start(() -> {
                try {
                    while (true) {
                        reader.readReply();
                        readerGot.incrementAndGet();
                    }
                } catch (IOException e) {
                    // closed at the end of the test
                }
            });
            byte[] message = new byte[8192];
            int messages = 0;
            long publishedWhenClosed = -1;
            while (publishedWhenClosed < 0) {
                assertTrue(messages < 16_384, "128 MiB published and the slow subscriber still counted");
                java.io.ByteArrayOutputStream batch = new java.io.ByteArrayOutputStream();
                for (int k = 0; k < 64; k++) {
                    batch.writeBytes(Wire.encode("PUBLISH".getBytes(StandardCharsets.US_ASCII),
                            "flood".getBytes(StandardCharsets.US_ASCII), message));
                }
                // the reading subscriber is kept within 4 MiB of the publisher, far below the limit
                int sent = messages;
                eventually(() -> readerGot.get() >= sent - 512, "the reading subscriber to keep up");
                pub.send(batch.toByteArray());
                for (int k = 0; k < 64; k++) {
                    String receivers = pub.reply();
                    messages++;
                    if (receivers.equals(":1\r\n") && publishedWhenClosed < 0) {
                        publishedWhenClosed = (long) messages * message.length;
                    }
                }
            }
            // 32 MiB held for it, and what the two sockets' buffers took before that
            assertTrue(publishedWhenClosed > OutputLimit.HARD && publishedWhenClosed < OutputLimit.HARD + (32 << 20),
                    "closed after " + publishedWhenClosed + " bytes");
            assertTrue(stderr.text().contains("of output wait for it to read (client-output-buffer-limit pubsub "), stderr.text());
            assertEquals("+PONG\r\n", pub.call("PING"));
            assertEquals("+OK\r\n", pub.call("SET", "still", "here"));
            assertTrue(call(pub, "PUBSUB", "NUMSUB", "flood").endsWith(":1\r\n"));
            int total = messages;
            eventually(() -> readerGot.get() == total, "the reading subscriber's " + total + " messages");
            slow.setSoTimeout(30_000);
            InputStream slowIn = slow.getInputStream();
            byte[] sink = new byte[1 << 16];
            long slowGot = 0;
            for (int n; (n = slowIn.read(sink)) >= 0; ) {
                slowGot += n;
            }
            assertTrue(slowGot < (long) total * message.length, "the slow subscriber's connection ends early: " + slowGot);
            reader.socket.close();
            readerThread.join(10_000);
        }
    }

    private static String call(Wire w, String... args) {
        try {
            return w.call(args);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void subscriptionsEndWithTheConnection() throws Exception {
        try (ColossalServer server = server(2, 0); Jedis admin = new Jedis("127.0.0.1", server.port())) {
            try (Wire quits = new Wire(server.port())) {
                quits.call("SUBSCRIBE", "a");
                quits.call("PSUBSCRIBE", "a*");
                assertEquals(1, numsub(admin, "a"));
                assertEquals(1, admin.pubsubNumPat());
                assertEquals("+OK\r\n", quits.call("QUIT"));
                eventually(() -> numsub(admin, "a") == 0 && admin.pubsubNumPat() == 0, "QUIT to unsubscribe");
            }
            try (Wire killed = new Wire(server.port())) {
                killed.call("SUBSCRIBE", "b");
                killed.call("SSUBSCRIBE", "s");
                long id = Long.parseLong(admin.clientList().lines().filter(l -> l.contains(" sub=1 ")).findFirst()
                        .orElseThrow().replaceAll("^id=(\\d+) .*", "$1"));
                assertEquals(1, admin.clientKill(new redis.clients.jedis.params.ClientKillParams().id(Long.toString(id))));
                eventually(() -> numsub(admin, "b") == 0
                        && admin.pubsubShardNumSub("s").get("s") == 0, "CLIENT KILL to unsubscribe");
                assertTrue(killed.closedByServer());
            }
            try (Wire dropped = new Wire(server.port())) {
                dropped.call("SUBSCRIBE", "c");
                dropped.socket.setSoLinger(true, 0); // a reset, not a goodbye
            }
            eventually(() -> numsub(admin, "c") == 0, "a reset connection to unsubscribe");
            try (Wire typed = new Wire(server.port())) {
                typed.call("PSUBSCRIBE", "t*");
                assertEquals(0, admin.clientKill(new redis.clients.jedis.params.ClientKillParams()
                        .type(redis.clients.jedis.args.ClientType.NORMAL).skipMe(
                                redis.clients.jedis.params.ClientKillParams.SkipMe.YES)));
                assertEquals(1, admin.clientKill(new redis.clients.jedis.params.ClientKillParams()
                        .type(redis.clients.jedis.args.ClientType.PUBSUB)));
                assertTrue(typed.closedByServer());
                eventually(() -> admin.pubsubNumPat() == 0, "CLIENT KILL TYPE pubsub");
            }
        }
        ColossalServer server = server(2, 0);
        try (Wire sub = new Wire(server.port())) {
            sub.call("SUBSCRIBE", "d");
            server.close();
            assertTrue(sub.closedByServer(), "the server's shutdown closes its subscribers");
        }
    }

    @Test
    void theIdleTimeoutSparesSubscribers() throws Exception {
        try (ColossalServer server = server(2, 1);
             Wire sub = new Wire(server.port());
             Wire idle = new Wire(server.port())) {
            assertEquals("+PONG\r\n", idle.call("PING"));
            sub.call("SUBSCRIBE", "quiet");
            Thread.sleep(3500);
            assertTrue(idle.closedByServer(), "an idle client is closed");
            try (Wire pub = new Wire(server.port())) {
                assertEquals(":1\r\n", pub.call("PUBLISH", "quiet", "still there?"));
            }
            assertEquals("*3\r\n$7\r\nmessage\r\n$5\r\nquiet\r\n$12\r\nstill there?\r\n", sub.reply());
            sub.call("UNSUBSCRIBE");
            Thread.sleep(3500);
            assertTrue(sub.closedByServer(), "no longer subscribed, it is idle like any other");
        }
    }

    @Test
    void infoClientListAndMetricsCount() throws Exception {
        try (ColossalServer server = server(2, 0);
             Wire sub = new Wire(server.port());
             Jedis admin = new Jedis("127.0.0.1", server.port())) {
            sub.call("SUBSCRIBE", "x");
            sub.call("SUBSCRIBE", "y");
            sub.call("PSUBSCRIBE", "z*");
            sub.call("SSUBSCRIBE", "s");
            String stats = admin.info("stats");
            assertTrue(stats.contains("\r\npubsub_channels:2\r\npubsub_patterns:1\r\npubsubshard_channels:1\r\n"), stats);
            String line = admin.clientList().lines().filter(l -> l.contains("cmd=ssubscribe")).findFirst().orElseThrow();
            assertTrue(line.contains(" flags=P db=0 sub=2 psub=1 ssub=1 "), line);
            String metrics = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + server.httpPort() + "/metrics")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body();
            for (String series : List.of("colossal_pubsub_channels 2\n", "colossal_pubsub_patterns 1\n",
                    "colossal_pubsub_shard_channels 1\n")) {
                assertTrue(metrics.contains(series), series + " in\n" + metrics);
            }
            admin.publish("x", "1");
            String commandStats = admin.info("commandstats");
            assertTrue(commandStats.contains("cmdstat_subscribe:calls=2,"), commandStats);
            assertTrue(commandStats.contains("cmdstat_publish:calls=1,"), commandStats);
        }
    }

    /**
     * Spring Session's indexed repository turns keyspace events on at start ({@code Egx}); a CONFIG
     * SET with the classes this server does not publish (key-miss, new-key) is refused with why and
     * sets nothing, the other parameters in it neither.
     */
    @Test
    void keyspaceEventsAreSetAsAWholeWithTheOtherParameters() throws Exception {
        try (ColossalServer server = server(1, 0); Wire w = new Wire(server.port())) {
            assertEquals("+OK\r\n", w.call("CONFIG", "SET", "notify-keyspace-events", "Egx"));
            assertEquals("*2\r\n$22\r\nnotify-keyspace-events\r\n$3\r\ngxE\r\n",
                    w.call("CONFIG", "GET", "notify-keyspace-events"));
            assertEquals("-ERR CONFIG SET notify-keyspace-events: this server does not publish key-miss (m) events,"
                    + " which would cost every read a lookup; leave them out\r\n",
                    w.call("CONFIG", "SET", "slowlog-max-len", "7", "notify-keyspace-events", "KEAm"));
            assertEquals("*2\r\n$15\r\nslowlog-max-len\r\n$3\r\n128\r\n", w.call("CONFIG", "GET", "slowlog-max-len"),
                    "nothing is set unless every parameter can be");
            assertEquals("*2\r\n$22\r\nnotify-keyspace-events\r\n$3\r\ngxE\r\n",
                    w.call("CONFIG", "GET", "notify-keyspace-events"));
            assertEquals("+OK\r\n", w.call("CONFIG", "SET", "notify-keyspace-events", ""));
        }
    }

    @Test
    void redisCliSubscribes() throws Exception {
        Path cli = TestServers.onPath("redis-cli");
        Assumptions.assumeTrue(cli != null, "redis-cli not installed");
        try (ColossalServer server = server(2, 0); Jedis pub = new Jedis("127.0.0.1", server.port())) {
            Path out = dir.resolve("cli.out");
            Process p = new ProcessBuilder(cli.toString(), "-p", Integer.toString(server.port()), "subscribe", "news")
                    .redirectErrorStream(true).redirectOutput(out.toFile()).start();
            try {
                eventually(() -> numsub(pub, "news") == 1, "redis-cli to subscribe");
                assertEquals(1, pub.publish("news", "from java"));
                eventually(() -> read(out).contains("from java"), "redis-cli to print the message");
                assertEquals("subscribe\nnews\n1\nmessage\nnews\nfrom java\n", read(out).replace("\r", ""));
            } finally {
                p.destroy();
                p.waitFor();
            }
            eventually(() -> numsub(pub, "news") == 0, "redis-cli's exit to unsubscribe");
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void theSoftLimitClosesAfterSixtySecondsAbove() {
        OutputLimit limit = new OutputLimit();
        long s = TimeUnit.SECONDS.toNanos(1);
        assertFalse(limit.exceeded(OutputLimit.SOFT + 1, 0));
        assertFalse(limit.exceeded(OutputLimit.SOFT + 1, 59 * s));
        assertFalse(limit.exceeded(OutputLimit.SOFT, 59 * s), "below again: the clock starts over");
        assertFalse(limit.exceeded(OutputLimit.SOFT + 1, 60 * s));
        assertFalse(limit.exceeded(OutputLimit.HARD, 119 * s));
        assertTrue(limit.exceeded(OutputLimit.SOFT + 1, 120 * s));
        assertTrue(new OutputLimit().exceeded(OutputLimit.HARD + 1, 0), "past the hard limit at once");
    }
}
