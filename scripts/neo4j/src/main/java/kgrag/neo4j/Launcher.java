package kgrag.neo4j;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.connectors.ConnectorPortRegister;
import org.neo4j.configuration.connectors.ConnectorType;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.PortBindException;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.internal.helpers.HostnamePort;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.logging.Level;
import org.neo4j.logging.log4j.Log4jLogProvider;
import org.neo4j.monitoring.Monitors;

/**
 * Starts an embedded Neo4j 5.26 community DBMS with Bolt on 127.0.0.1 and auth disabled, for tests.
 *
 * <pre>
 * java -Xmx1g -cp 'build/neo4j/lib/*' kgrag.neo4j.Launcher [--port N] [--data DIR] [--pagecache SIZE] [--conf FILE]
 * </pre>
 *
 * --port 0 (the default) picks a free port. --data is the Neo4j home directory (store files go to
 * DIR/data, Neo4j's own debug log to DIR/logs). --conf loads an extra neo4j.conf-style file for anything else.
 * Once Bolt accepts connections it prints exactly one line {@code NEO4J_READY bolt://127.0.0.1:PORT} on stdout.
 * SIGTERM / SIGINT shut the DBMS down cleanly and print {@code NEO4J_STOPPED}. With NEO4J_PLAN_LOG naming a file,
 * the statements Cypher plans are written to it ({@link PlanLog}).
 */
public final class Launcher {
    private Launcher() {}

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable t) {
            t.printStackTrace();
            System.err.println("NEO4J_FAILED " + t);
            // Neo4j may leave non-daemon threads behind after a failed start: do not hang.
            Runtime.getRuntime().halt(1);
        }
    }

    private static void run(String[] args) throws Exception {
        int port = 0;
        Path home = Path.of("build/neo4j/data");
        long pageCache = parseSize("64m");
        Path conf = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--port" -> port = Integer.parseInt(need(args, ++i, a));
                case "--data" -> home = Path.of(need(args, ++i, a));
                case "--pagecache" -> pageCache = parseSize(need(args, ++i, a));
                case "--conf" -> conf = Path.of(need(args, ++i, a));
                case "-h", "--help" -> {
                    System.out.println("usage: Launcher [--port N (0=free port)] [--data DIR] [--pagecache 64m] [--conf FILE]");
                    return;
                }
                default -> {
                    System.err.println("unknown argument: " + a);
                    System.exit(2);
                }
            }
        }
        home = home.toAbsolutePath().normalize();
        Files.createDirectories(home);
        String planLogEnv = System.getenv("NEO4J_PLAN_LOG");
        Path planLog = planLogEnv == null || planLogEnv.isEmpty() ? null : Path.of(planLogEnv).toAbsolutePath();

        long t0 = System.nanoTime();
        // Registered before build() so that a SIGTERM during startup also shuts down cleanly.
        AtomicReference<DatabaseManagementService> current = new AtomicReference<>();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("NEO4J_STOPPING");
            System.out.flush();
            DatabaseManagementService s = current.getAndSet(null);
            try {
                if (s != null) {
                    s.shutdown();
                }
            } catch (Throwable t) {
                t.printStackTrace();
            }
            System.out.println("NEO4J_STOPPED");
            System.out.flush();
            stopped.countDown();
        }, "neo4j-shutdown"));

        boolean pickPort = port == 0;
        DatabaseManagementService dbms = null;
        for (int attempt = 1; dbms == null; attempt++) {
            if (pickPort) {
                // Pick the free port here rather than binding Bolt to port 0, so that the advertised address
                // (used in routing tables for neo4j:// URLs) carries the real port.
                try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
                    port = probe.getLocalPort();
                }
            }
            try {
                dbms = builder(home, port, pageCache, conf, planLog != null).build();
            } catch (RuntimeException e) {
                // Someone grabbed the free port between the probe and Bolt's bind: try another one.
                if (!pickPort || attempt >= 3 || !causedBy(e, PortBindException.class)) {
                    throw e;
                }
                System.out.println("NEO4J_INFO port " + port + " was taken, retrying with another free port");
            }
        }
        final DatabaseManagementService started = dbms;
        current.set(started);
        GraphDatabaseService db = started.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        // Wait until the default database is online (it normally is once build() returns).
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (!db.isAvailable(1000)) {
            if (System.nanoTime() > deadline) {
                System.err.println("NEO4J_FAILED default database did not become available");
                System.exit(1);
            }
        }

        if (planLog != null) {
            PlanLog.install(((GraphDatabaseAPI) db).getDependencyResolver().resolveDependency(Monitors.class), planLog);
        }
        HostnamePort bound = ((GraphDatabaseAPI) db).getDependencyResolver()
                .resolveDependency(ConnectorPortRegister.class)
                .getLocalAddress(ConnectorType.BOLT);
        int boltPort = bound != null ? bound.getPort() : port;
        if (boltPort <= 0) {
            System.err.println("NEO4J_FAILED could not determine the Bolt port");
            System.exit(1);
        }
        // Make sure the Bolt socket really accepts connections before announcing readiness.
        while (!canConnect("127.0.0.1", boltPort)) {
            if (System.nanoTime() > deadline) {
                System.err.println("NEO4J_FAILED Bolt port " + boltPort + " does not accept connections");
                System.exit(1);
            }
            Thread.sleep(100);
        }
        System.out.printf("NEO4J_INFO home=%s started_in_ms=%d%n", home, (System.nanoTime() - t0) / 1_000_000);
        System.out.printf("NEO4J_READY bolt://127.0.0.1:%d%n", boltPort);
        System.out.flush();
        stopped.await();
    }

    private static DatabaseManagementServiceBuilder builder(Path home, int port, long pageCache, Path conf, boolean cacheMonitors) {
        DatabaseManagementServiceBuilder builder = new DatabaseManagementServiceBuilder(home)
                .setUserLogProvider(new Log4jLogProvider(System.out, Level.INFO))
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .setConfig(HttpConnector.enabled, false)
                .setConfig(HttpsConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.pagecache_memory, pageCache)
                // Tests create and drop lots of data: keep transaction logs small and do not preallocate them.
                .setConfig(GraphDatabaseSettings.keep_logical_logs, "false")
                .setConfig(GraphDatabaseSettings.logical_log_rotation_threshold, parseSize("32m"))
                .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                .setConfig(GraphDatabaseSettings.udc_enabled, false)
                // Bolt otherwise waits 5 s per connector (bolt + bolt-local) for connections on shutdown.
                .setConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofMillis(500))
                .setConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofMillis(500));
        if (cacheMonitors) {
            builder.setConfig(GraphDatabaseInternalSettings.cypher_enable_query_cache_monitors, true);
        }
        if (conf != null) {
            builder.loadPropertiesFromFile(conf);
        }
        return builder;
    }

    private static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    private static boolean canConnect(String host, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String need(String[] args, int i, String flag) {
        if (i >= args.length) {
            System.err.println("missing value for " + flag);
            System.exit(2);
        }
        return args[i];
    }

    private static long parseSize(String s) {
        String v = s.trim().toLowerCase();
        long mult = 1;
        char last = v.charAt(v.length() - 1);
        if (last == 'k' || last == 'm' || last == 'g') {
            mult = last == 'k' ? 1L << 10 : last == 'm' ? 1L << 20 : 1L << 30;
            v = v.substring(0, v.length() - 1);
        }
        return Long.parseLong(v) * mult;
    }
}
