// java.net.Socket and DatagramChannel echo round trip (review h-realprog2).
// java Hr2Net.java tcp|udp HOST PORT
import java.io.*;
import java.net.*;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

public class Hr2Net {
    public static void main(String[] a) throws Exception {
        int port = Integer.parseInt(a[2]);
        boolean ok;
        if (a[0].equals("tcp")) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(a[1], port), 5000);
                s.getOutputStream().write("SECRET".getBytes());
                byte[] b = s.getInputStream().readNBytes(6);
                ok = new String(b).equals("SECRET");
            }
        } else {
            try (DatagramChannel c = DatagramChannel.open()) {
                c.connect(new InetSocketAddress(a[1], port));
                c.write(ByteBuffer.wrap("SECRET".getBytes()));
                c.socket().setSoTimeout(3000);
                ByteBuffer r = ByteBuffer.allocate(64);
                c.read(r);
                ok = new String(r.array(), 0, r.position()).equals("SECRET");
            }
        }
        System.exit(ok ? 0 : 1);
    }
}
