// Go programs under egress-supervisor (review h-realprog4).
//
// One binary, one mode per argument: prints OK and exits 0 when the work was
// done, prints the error and exits 1 otherwise. Built twice by hr4-run.py:
// static with CGO_ENABLED=0 (Go's own resolver, raw syscalls) and with cgo
// (glibc's getaddrinfo under GODEBUG=netdns=cgo).
//
//	hr4-prog get URL [N]          net/http client, N requests on one keep-alive pool
//	hr4-prog many URL N           N goroutines at once, GOMAXPROCS threads
//	hr4-prog dial HOST PORT       net.Dialer (Happy Eyeballs over a dual-stack name), echo
//	hr4-prog resolve NAME         net.DefaultResolver.LookupIPAddr (Go's or glibc's resolver)
//	hr4-prog udp HOST PORT        net.Dial("udp"), write, read the echo
//	hr4-prog serve URL            an http.Server on 127.0.0.1:0, fetched by itself, then GET URL
//	hr4-prog exec MODE ARGS...    os/exec of this binary with MODE ARGS, Wait
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"
)

func die(err error) {
	fmt.Fprintln(os.Stderr, "hr4-prog:", err)
	os.Exit(1)
}

func get(c *http.Client, url string) error {
	r, err := c.Get(url)
	if err != nil {
		return err
	}
	defer r.Body.Close()
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		return err
	}
	if r.StatusCode != 200 {
		return fmt.Errorf("%s: %s", url, r.Status)
	}
	return nil
}

func main() {
	if len(os.Args) < 3 {
		die(fmt.Errorf("usage: hr4-prog MODE ARGS"))
	}
	a := os.Args[2:]
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := &http.Client{Timeout: 20 * time.Second}
	switch os.Args[1] {
	case "get":
		n := 1
		if len(a) > 1 {
			n, _ = strconv.Atoi(a[1])
		}
		for i := 0; i < n; i++ {
			if err := get(c, a[0]); err != nil {
				die(err)
			}
		}
	case "many":
		n, _ := strconv.Atoi(a[1])
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- get(c, a[0])
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				die(err)
			}
		}
	case "dial":
		d := net.Dialer{FallbackDelay: time.Millisecond}
		conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(a[0], a[1]))
		if err != nil {
			die(err)
		}
		fmt.Fprintln(os.Stderr, "connected", conn.RemoteAddr())
		if _, err := conn.Write([]byte("ping\n")); err != nil {
			die(err)
		}
		b := make([]byte, 5)
		if _, err := io.ReadFull(conn, b); err != nil {
			die(err)
		}
		conn.Close()
	case "resolve":
		addrs, err := net.DefaultResolver.LookupIPAddr(ctx, a[0])
		if err != nil {
			die(err)
		}
		fmt.Fprintln(os.Stderr, "addrs", addrs)
	case "udp":
		conn, err := net.Dial("udp", net.JoinHostPort(a[0], a[1]))
		if err != nil {
			die(err)
		}
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := conn.Write([]byte("ping")); err != nil {
			die(err)
		}
		b := make([]byte, 16)
		if _, err := conn.Read(b); err != nil {
			die(err)
		}
	case "serve":
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			die(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "hi\n")
		})}
		go srv.Serve(l)
		if err := get(c, "http://"+l.Addr().String()+"/"); err != nil {
			die(err)
		}
		if err := get(c, a[0]); err != nil {
			die(err)
		}
		srv.Shutdown(ctx)
	case "exec":
		self, err := os.Executable()
		if err != nil {
			die(err)
		}
		cmd := exec.CommandContext(ctx, self, a...)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			die(fmt.Errorf("child: %w", err))
		}
		return // the child printed OK
	default:
		die(fmt.Errorf("unknown mode %s", os.Args[1]))
	}
	fmt.Println("OK")
}
