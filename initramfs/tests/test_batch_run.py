"""batch_run.assign: which frames of a batch boot's result port belong to
which planned cell (docs/guest.md "Batches"). Pure: synthetic frames."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "host"))
import batch_run  # noqa: E402

NONCE = "ab" * 16


def frame(seq, cell="c", nonce=NONCE, complete=True):
    text = f"@@egress-result v1 nonce={nonce} cell={cell}{seq} seq={seq}\n@@section meta 0 x gzip\n"
    if complete:
        text += f"@@end meta\n@@egress-end v1 nonce={nonce}\n"
    return text.encode()


def plan(raw, n, end=None):
    return batch_run.assign(batch_run.split_frames(raw), n, NONCE, end)


class Assign(unittest.TestCase):
    def test_every_cell_framed_in_order_is_decided_with_its_own_frame(self):
        raw = frame(1) + frame(2) + frame(3) + b"@@egress-batch-end v1 nonce=" + \
            NONCE.encode() + b" seq=3 status=done\n"
        p = plan(raw, 3, batch_run.batch_end(raw, NONCE))
        self.assertEqual([x["state"] for x in p], ["framed"] * 3)
        self.assertEqual([len(x["frames"]) for x in p], [1, 1, 1])
        self.assertFalse(any(x["out_of_order"] for x in p))
        self.assertNotIn(b"batch-end", p[2]["frames"][0])

    def test_cells_after_the_one_the_boot_ended_in_are_rerun(self):
        p = plan(frame(1) + frame(2, complete=False), 4)
        self.assertEqual([x["state"] for x in p], ["framed", "ended", "rerun", "rerun"])
        self.assertIn("ended in cell 2", p[2]["reason"])

    def test_a_missing_frame_ends_the_batch_at_that_cell(self):
        p = plan(frame(1) + frame(3), 3)
        self.assertEqual([x["state"] for x in p], ["framed", "ended", "rerun"])
        # The later cell's frame is handed to the missing one: its decoder
        # sees a frame for another cell (infra-error), never an ok.
        self.assertEqual(len(p[1]["frames"]), 1)

    def test_a_duplicated_frame_gives_its_cell_two_frames(self):
        p = plan(frame(1) + frame(2) + frame(2) + frame(3), 3)
        self.assertEqual(len(p[1]["frames"]), 2)
        self.assertEqual(p[2]["state"], "framed")

    def test_a_frame_out_of_order_is_flagged(self):
        p = plan(frame(2) + frame(1), 2)
        self.assertEqual([x["out_of_order"] for x in p], [False, True])

    def test_a_foreign_frame_before_a_cells_own_goes_to_that_cell(self):
        p = plan(frame(1) + frame(2, nonce="cd" * 16) + frame(2), 2)
        self.assertEqual(len(p[0]["frames"]), 1)
        self.assertEqual(len(p[1]["frames"]), 2)

    def test_a_foreign_frame_after_the_last_goes_to_the_last_cell(self):
        p = plan(frame(1) + frame(2) + frame(9, nonce="cd" * 16), 2)
        self.assertEqual(len(p[1]["frames"]), 2)

    def test_a_failed_reset_reruns_every_later_cell_with_its_lines(self):
        import base64
        detail = base64.b64encode(b"fail reset:sysctl kernel.yama.ptrace_scope 3\n").decode()
        raw = frame(1) + f"@@egress-batch-end v1 nonce={NONCE} seq=1 status=reset-failed " \
            f"detail={detail}\n".encode()
        p = plan(raw, 3, batch_run.batch_end(raw, NONCE))
        self.assertEqual([x["state"] for x in p], ["framed", "rerun", "rerun"])
        self.assertIn("ptrace_scope", p[1]["reason"])

    def test_a_batch_end_with_another_nonce_is_not_the_guests(self):
        raw = frame(1) + b"@@egress-batch-end v1 nonce=00 seq=1 status=reset-failed\n"
        self.assertIsNone(batch_run.batch_end(raw, NONCE))


class Console(unittest.TestCase):
    def test_each_cell_gets_its_part_and_the_boot_before_the_first(self):
        con = ("boot\negress-init: started at uptime 3\n"
               "egress-init: batch cell 1 a begins at uptime 4\none\n"
               "egress-init: batch cell 2 b begins at uptime 5\nKernel panic - not syncing\n")
        head, parts = batch_run.console_parts(con)
        self.assertIn("started at uptime", head)
        self.assertNotIn("panic", parts[1])
        self.assertIn("panic", parts[2])


if __name__ == "__main__":
    unittest.main()


class Invocation(unittest.TestCase):
    """run-vm.sh batch shares its guest options and their checks with
    run-vm.sh cell (cell_run.add_guest_options): each refusal names batch."""

    def refused(self, *argv):
        with self.assertRaises(batch_run.BadInvocation) as cm:
            batch_run.parse(list(argv))
        return str(cm.exception)

    def test_accel_reason_without_accel_is_refused_as_for_a_cell(self):
        msg = self.refused("--kernel", "k", "--initrd", "i", "--plan", "p", "--out", "o",
                           "--accel-reason", "proven elsewhere")
        self.assertEqual(msg, "batch: --accel-reason goes with --accel")

    def test_unknown_machine_is_refused_naming_batch_not_cell(self):
        msg = self.refused("--kernel", "k", "--initrd", "i", "--plan", "p", "--out", "o",
                           "--machine", "cell:virt")
        self.assertTrue(msg.startswith("batch: argument --machine"), msg)
        self.assertIn("'cell:virt'", msg)
