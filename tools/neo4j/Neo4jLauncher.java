import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.io.ByteUnit;

/**
 * Run Neo4j Community embedded with only the Bolt connector, configured from the environment.
 *
 * NEO4J_HOME      data directory (default ./var/neo4j)
 * NEO4J_BOLT_PORT Bolt port on 127.0.0.1 (default 7687)
 * NEO4J_PASSWORD  when set, auth is on and user neo4j gets this password; unset means auth off
 * NEO4J_PAGECACHE page cache size, e.g. 2g (default 2g: a quarter of what a 24 GiB dev box can spare)
 *
 * Prints "NEO4J READY" once Bolt accepts queries; stops cleanly on SIGTERM.
 */
public class Neo4jLauncher {

    public static void main(String[] args) {
        try {
            run();
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void run() throws Exception {
        Map<String, String> env = System.getenv();
        Path home = Path.of(env.getOrDefault("NEO4J_HOME", "var/neo4j")).toAbsolutePath();
        int port = Integer.parseInt(env.getOrDefault("NEO4J_BOLT_PORT", "7687"));
        String password = env.getOrDefault("NEO4J_PASSWORD", "");
        String pageCache = env.getOrDefault("NEO4J_PAGECACHE", "2g");
        Files.createDirectories(home);

        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                .setConfig(HttpConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, !password.isEmpty())
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.parse(pageCache))
                .setConfig(GraphDatabaseSettings.transaction_timeout, Duration.ofMinutes(10))
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            dbms.shutdown();
            stopped.countDown();
        }));

        GraphDatabaseService system = dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME);
        if (!password.isEmpty()) {
            try {
                system.executeTransactionally(
                        "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED", Map.of("password", password));
            } catch (QueryExecutionException e) {
                if (!e.getMessage().contains("cannot be the same")) {
                    throw e;
                }
            }
        }
        dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME).executeTransactionally("RETURN 1");
        System.out.println("NEO4J READY bolt://127.0.0.1:" + port + " data=" + home);
        System.out.flush();
        stopped.await();
    }
}
