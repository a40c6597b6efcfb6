. "$TEST_LIB"; skip "not written yet"
