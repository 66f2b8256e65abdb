"""A suite of pass/fail checks: each printed as it is decided and written to
an xUnit report, as tools/test.sh counts them."""
import xml.etree.ElementTree as ET


class Checks:
    def __init__(self, name):
        self.name = name
        self.suite = ET.Element("testsuite", name=name)
        self.failed = 0

    def record(self, case, problem, note="", quiet=False):
        """One check: `problem` None when it passed, else what went wrong."""
        element = ET.SubElement(self.suite, "testcase", classname=self.name, name=case)
        if problem:
            self.failed += 1
            ET.SubElement(element, "failure", message=problem[:4000])
            print(f"FAIL: {case}: {problem[:4000]}")
        elif not quiet:
            print(f"ok: {case}{': ' + note if note else ''}")

    def finish(self, xunit=None):
        """Writes the report, prints the count; the exit status."""
        total = len(self.suite)
        self.suite.set("tests", str(total))
        self.suite.set("failures", str(self.failed))
        if xunit:
            ET.ElementTree(self.suite).write(xunit)
        print(f"{self.name}: {total} checks, {total - self.failed} passed, "
              f"{self.failed} failed")
        return 1 if self.failed else 0
