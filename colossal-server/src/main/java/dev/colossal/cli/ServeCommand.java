package dev.colossal.cli;

import dev.colossal.server.ColossalServer;
import dev.colossal.server.ServerConfig;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code colossal serve}: the persistent map on the network, RESP and HTTP. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Serve the persistent map over RESP (Redis clients work unmodified) and HTTP.")
public final class ServeCommand implements Callable<Integer> {

    @Option(names = "--bind", description = "Address to listen on (default: ${DEFAULT-VALUE}; loopback only)")
    String bind = "127.0.0.1";

    @Option(names = "--port", description = "RESP port (default: ${DEFAULT-VALUE})")
    int port = ServerConfig.DEFAULT_PORT;

    @Option(names = "--http-port", description = "HTTP port, -1 for none (default: ${DEFAULT-VALUE})")
    int httpPort = ServerConfig.DEFAULT_HTTP_PORT;

    @Option(names = "--data", description = "Data directory (default: ${DEFAULT-VALUE})")
    Path data = Path.of("data");

    @Option(names = "--requirepass", description = "Password AUTH must give (default: none)")
    String requirePass;

    @Option(names = "--maxclients", description = "Most connections at once (default: ${DEFAULT-VALUE})")
    int maxClients = 10_000;

    @Option(names = "--proto-max-bulk-len", description = "Longest bulk string in a request, bytes (default: ${DEFAULT-VALUE})")
    long maxBulk = 512L * 1024 * 1024;

    @Option(names = "--timeout", description = "Close connections idle this many seconds, 0 never (default: ${DEFAULT-VALUE})")
    int idleTimeout;

    @Option(names = "--io-threads", description = "Event-loop threads (default: the number of cores)")
    int ioThreads = Math.max(1, Runtime.getRuntime().availableProcessors());

    /** Creates the command; picocli calls this. */
    public ServeCommand() {}

    @Override
    public Integer call() throws Exception {
        ServerConfig config = new ServerConfig(bind, port, httpPort, data, requirePass, maxClients, maxBulk,
                idleTimeout, ioThreads);
        ColossalServer server = ColossalServer.start(config);
        Thread hook = new Thread(() -> {
            try {
                server.close();
                System.err.println("colossal: stopped; data synced to " + data.toAbsolutePath());
            } catch (Exception e) {
                System.err.println("colossal: error while stopping: " + e);
            }
        }, "colossal-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        System.err.printf("colossal: serving %s on %s:%d (RESP2/3)%s; Ctrl-C or SIGTERM stops%n",
                data.toAbsolutePath(), bind, server.port(),
                server.httpPort() >= 0 ? " and http://" + bind + ":" + server.httpPort() : "");
        server.awaitShutdown();
        return 0;
    }
}
