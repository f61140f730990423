// hr5-Prog.java: the JVM's network stacks under egress-supervisor (helper
// h-realprog5). java 17 runs the source file directly:
//   java tests/review/hr5-Prog.java h2 https://127.0.0.1:P/ N   HttpClient HTTP/2 over TLS, N requests at once
//   java tests/review/hr5-Prog.java nio HOST PORT N              N non-blocking SocketChannels on one Selector
//   java tests/review/hr5-Prog.java threads HOST PORT N          N threads, one Socket each, echo
//   java tests/review/hr5-Prog.java dgram HOST PORT N            DatagramChannel (dual-stack IPv6 socket), N sends, echoes
//   java tests/review/hr5-Prog.java server N                     a ServerSocketChannel on 127.0.0.1:0 served by a pool, N clients of its own
// Exit 0 when the work was done (every echo read back, every response HTTP/2 200).
import java.net.*;
import java.net.http.*;
import java.nio.*;
import java.nio.channels.*;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.*;
import java.util.concurrent.*;
import javax.net.ssl.*;

public class Prog {
    public static void main(String[] a) throws Exception {
        int rc = switch (a[0]) {
            case "h2" -> h2(a[1], Integer.parseInt(a[2]));
            case "nio" -> nio(a[1], Integer.parseInt(a[2]), Integer.parseInt(a[3]));
            case "threads" -> threads(a[1], Integer.parseInt(a[2]), Integer.parseInt(a[3]));
            case "dgram" -> dgram(a[1], Integer.parseInt(a[2]), Integer.parseInt(a[3]));
            case "server" -> server(Integer.parseInt(a[1]));
            default -> 2;
        };
        System.out.println("rc " + rc);
        System.exit(rc);
    }

    static int h2(String url, int n) throws Exception {
        TrustManager[] all = { new X509TrustManager() {
            public void checkClientTrusted(X509Certificate[] c, String t) {}
            public void checkServerTrusted(X509Certificate[] c, String t) {}
            public X509Certificate[] getAcceptedIssuers() { return new X509Certificate[0]; }
        } };
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, all, null);
        HttpClient c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(ctx)
            .connectTimeout(java.time.Duration.ofSeconds(5)).build();
        List<CompletableFuture<HttpResponse<String>>> fs = new ArrayList<>();
        for (int i = 0; i < n; i++)
            fs.add(c.sendAsync(HttpRequest.newBuilder(URI.create(url + "r" + i)).build(), HttpResponse.BodyHandlers.ofString()));
        int ok = 0;
        for (var f : fs) {
            try {
                var r = f.get(20, TimeUnit.SECONDS);
                System.out.println(r.version() + " " + r.statusCode() + " " + r.body().trim());
                if (r.version() == HttpClient.Version.HTTP_2 && r.statusCode() == 200) ok++;
            } catch (Exception e) {
                System.out.println("error " + e);
            }
        }
        System.out.println("h2 ok " + ok + " of " + n);
        return ok == n ? 0 : 1;
    }

    static int nio(String host, int port, int n) throws Exception {
        Selector sel = Selector.open();
        InetSocketAddress to = new InetSocketAddress(InetAddress.getByName(host), port);
        for (int i = 0; i < n; i++) {
            SocketChannel ch = SocketChannel.open();
            ch.configureBlocking(false);
            boolean now = ch.connect(to);
            ch.register(sel, now ? SelectionKey.OP_WRITE : SelectionKey.OP_CONNECT, i);
        }
        int done = 0, dead = 0;
        long end = System.currentTimeMillis() + 10000;
        while (done + dead < n && System.currentTimeMillis() < end) {
            sel.select(500);
            for (Iterator<SelectionKey> it = sel.selectedKeys().iterator(); it.hasNext();) {
                SelectionKey k = it.next();
                it.remove();
                SocketChannel ch = (SocketChannel) k.channel();
                try {
                    if (k.isConnectable()) {
                        ch.finishConnect();
                        k.interestOps(SelectionKey.OP_WRITE);
                    } else if (k.isWritable()) {
                        ch.write(ByteBuffer.wrap(("nio " + k.attachment() + "\n").getBytes()));
                        k.interestOps(SelectionKey.OP_READ);
                    } else if (k.isReadable()) {
                        ByteBuffer b = ByteBuffer.allocate(64);
                        if (ch.read(b) > 0) done++;
                        ch.close();
                    }
                } catch (Exception e) {
                    System.out.println("channel " + k.attachment() + ": " + e);
                    dead++;
                    ch.close();
                }
            }
        }
        System.out.println("nio echoes " + done + " of " + n);
        return done == n ? 0 : 1;
    }

    static int threads(String host, int port, int n) throws Exception {
        ExecutorService ex = Executors.newFixedThreadPool(n);
        List<Future<Boolean>> fs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final int id = i;
            fs.add(ex.submit(() -> {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(host, port), 5000);
                    s.setSoTimeout(5000);
                    byte[] m = ("thread " + id + "\n").getBytes();
                    s.getOutputStream().write(m);
                    byte[] b = new byte[64];
                    return s.getInputStream().read(b) == m.length;
                } catch (Exception e) {
                    System.out.println("thread " + id + ": " + e);
                    return false;
                }
            }));
        }
        int ok = 0;
        for (var f : fs) if (f.get()) ok++;
        ex.shutdown();
        System.out.println("threads ok " + ok + " of " + n);
        return ok == n ? 0 : 1;
    }

    static int dgram(String host, int port, int n) throws Exception {
        DatagramChannel ch = DatagramChannel.open();
        InetSocketAddress to = new InetSocketAddress(InetAddress.getByName(host), port);
        for (int i = 0; i < n; i++) ch.send(ByteBuffer.wrap(("dgram " + i).getBytes()), to);
        ch.configureBlocking(false);
        Selector sel = Selector.open();
        ch.register(sel, SelectionKey.OP_READ);
        int got = 0;
        while (got < n && sel.select(2000) > 0) {
            sel.selectedKeys().clear();
            while (ch.receive(ByteBuffer.allocate(64)) != null) got++;
        }
        System.out.println("dgram echoes " + got + " of " + n);
        return got == n ? 0 : 1;
    }

    static int server(int n) throws Exception {
        ServerSocketChannel ss = ServerSocketChannel.open();
        ss.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
        int port = ((InetSocketAddress) ss.getLocalAddress()).getPort();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        Thread acc = new Thread(() -> {
            try {
                for (int i = 0; i < n; i++) {
                    SocketChannel c = ss.accept();
                    pool.submit(() -> {
                        try (c) {
                            ByteBuffer b = ByteBuffer.allocate(64);
                            c.read(b);
                            b.flip();
                            c.write(b);
                        } catch (Exception e) {
                            System.out.println("served: " + e);
                        }
                        return null;
                    });
                }
            } catch (Exception e) {
                System.out.println("accept: " + e);
            }
        });
        acc.start();
        int r = threads("127.0.0.1", port, n);
        acc.join(5000);
        pool.shutdown();
        return r;
    }
}
