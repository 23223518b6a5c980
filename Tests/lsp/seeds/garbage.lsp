Content-Length: x

Bogus

Content-Length: 37

{"a":[1,2,{"b":"\ud83c\udca1\u0000"}]Content-Length: 12

[[[[[[]]]]]]